"""Optional, explicit publishing of a built dataset to the Hugging Face Hub."""

from __future__ import annotations

import os
from pathlib import Path

from security_verifiers.errors import UserError


def push_build(build: Path, repo_id: str, token: str | None = None, private: bool = True) -> str:
    """Upload a build directory to a dataset repo under a folder named after the build.

    Needs the user's token (``--token`` or ``$HF_TOKEN``); nothing else in the project
    depends on the hub.
    """
    token = token or os.environ.get("HF_TOKEN")
    if not token:
        raise UserError("--push needs a Hugging Face token: pass --token or set HF_TOKEN")
    if os.environ.get("HF_HUB_OFFLINE") == "1":
        raise UserError("--push needs the network, but HF_HUB_OFFLINE=1 is set")
    from huggingface_hub import HfApi
    from huggingface_hub.errors import HfHubHTTPError

    api = HfApi(token=token)
    try:
        api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
        commit = api.upload_folder(
            repo_id=repo_id,
            repo_type="dataset",
            folder_path=str(build),
            path_in_repo=f"{build.parent.name}/{build.name}",
            commit_message=f"Add {build.parent.name} {build.name}",
        )
    except HfHubHTTPError as exc:
        raise UserError(f"pushing {build} to {repo_id} failed: {exc}") from None
    return str(getattr(commit, "commit_url", commit))
