"""Tool mode under verifiers v1: an environment loaded with tools serves its classic tools as a
v1 `Toolset` (an MCP server per rollout) bound to the rollout's task.

In process: the server registers the classic tool names and schemas (the hidden episode
argument is not advertised) and a call reads the task's own episode. As a process: the server
is started the way v1's launcher starts it (`python -m`, `VF_CONFIG`, a port file, a state
channel whose `/task` hands it the rollout's task) and called through an MCP client (v1's
own where verifiers bundles one).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from sv_shared.v1_compat import load_taskset, v1_available

REASON = v1_available()
pytestmark = pytest.mark.skipif(REASON is not None, reason=REASON or "")
E3_TOOLS = {"view_file", "run_tests", "run_bandit", "run_semgrep"}


def e3_tool_task() -> Any:
    taskset = load_taskset("e3", max_examples=1, include_tools=True)
    return next(iter(taskset))


def mcp_server() -> Any:
    """An in-process MCP server of the installed SDK (mcp 2: MCPServer; mcp 1: FastMCP)."""
    try:
        from mcp.server.mcpserver import MCPServer
    except ImportError:
        from mcp.server.fastmcp import FastMCP as MCPServer
    return MCPServer("test")


def schema_of(tool: Any) -> dict[str, Any]:
    return getattr(tool, "input_schema", None) or tool.inputSchema


def text_of(result: Any) -> str:
    """The text of a tool result (a content list, or (content, structured) on mcp 1)."""
    content = result[0] if isinstance(result, tuple) else getattr(result, "content", result)
    return "".join(getattr(part, "text", "") for part in content)


def test_tool_mode_tasks_carry_the_environment_tool_server() -> None:
    from security_verifiers_v1.toolset import SecurityVerifiersToolset

    task = e3_tool_task()
    assert task.config.tools is not None and task.config.tools.env == "e3"
    assert task.config.tools.env_args["include_tools"] is True
    (server,) = type(task).toolsets(task.config)
    assert isinstance(server, SecurityVerifiersToolset)
    plain = next(iter(load_taskset("e3", max_examples=1)))
    assert type(plain).toolsets(plain.config) == []


def test_tool_server_serves_the_classic_tools_bound_to_the_task() -> None:
    from security_verifiers_v1.toolset import SecurityVerifiersToolset

    task = e3_tool_task()
    toolset = SecurityVerifiersToolset(task.config.tools)

    async def run() -> tuple[list[Any], str, str]:
        await toolset.setup()
        await toolset.setup_task(task.data)
        server = mcp_server()
        toolset.register(server)
        tools = await server.list_tools()
        module = task.data.info["module_file"]
        shown = text_of(await server.call_tool("view_file", {"path": module}))
        refused = text_of(await server.call_tool("view_file", {"path": "/etc/passwd"}))
        return tools, shown, refused

    tools, shown, refused = asyncio.run(run())
    assert {t.name for t in tools} == E3_TOOLS
    for tool in tools:
        assert "episode" not in schema_of(tool).get("properties", {}), tool.name
        assert tool.description, tool.name
    first_line = task.data.info["vulnerable"].splitlines()[0]
    assert first_line in shown and shown.lstrip().startswith("1")
    assert "error" in json.loads(refused)


class TaskChannel(BaseHTTPRequestHandler):
    """The rollout's state channel as a launched tool server sees it: `GET /task`."""

    task_json = ""

    def do_GET(self) -> None:
        if self.path != "/rollout/task":
            self.send_error(404)
            return
        body = json.dumps(
            {"cls": "security_verifiers_v1:SecurityVerifiersTaskData", "task": self.task_json}
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@contextlib.asynccontextmanager
async def mcp_client(url: str) -> AsyncIterator[Any]:
    """v1's own MCP client (verifiers 0.4's chat program uses it), else the MCP SDK's
    streamable-HTTP client session (verifiers 0.3's v1 bundles none)."""
    try:
        from verifiers.v1.harnesses.utils.mcp import mcp_client as bundled
    except ImportError:
        bundled = None
    if bundled is not None:
        async with bundled({"url": url, "timeout": 60}) as client:
            yield client
        return
    from mcp import ClientSession
    from mcp.client.streamable_http import streamablehttp_client

    async with streamablehttp_client(url) as (read, write, _), ClientSession(read, write) as s:
        await s.initialize()
        yield s


def test_tool_server_process_answers_through_an_mcp_client(tmp_path: Path) -> None:
    task = e3_tool_task()
    assert type(task.data).__module__ == "security_verifiers_v1"
    TaskChannel.task_json = task.data.model_dump_json()
    channel = ThreadingHTTPServer(("127.0.0.1", 0), TaskChannel)
    threading.Thread(target=channel.serve_forever, daemon=True).start()
    port_file = tmp_path / "port"
    env = os.environ | {
        "VF_CONFIG": task.config.tools.model_dump_json(),
        "VF_STATE_URL": f"http://127.0.0.1:{channel.server_address[1]}/rollout/state",
        "VF_STATE_SECRET": "test-secret",
        "MCP_PORT_FILE": str(port_file),
    }
    log = (tmp_path / "server.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "security_verifiers_v1.toolset"], env=env, stdout=log, stderr=log
    )
    try:
        deadline = time.monotonic() + 120
        while not port_file.exists() or not port_file.read_text().strip():
            assert process.poll() is None, (tmp_path / "server.log").read_text()[-2000:]
            assert time.monotonic() < deadline, "the tool server reported no port"
            time.sleep(0.2)
        url = f"http://127.0.0.1:{port_file.read_text().strip()}/mcp"

        async def call() -> tuple[set[str], str]:
            for _ in range(300):  # the port is reported before setup finishes
                try:
                    async with mcp_client(url) as client:
                        names = {t.name for t in (await client.list_tools()).tools}
                        module = task.data.info["module_file"]
                        result = await client.call_tool("view_file", {"path": module})
                        return names, text_of(result)
                except Exception:
                    if process.poll() is not None:
                        raise
                    await asyncio.sleep(0.2)
            raise AssertionError("the tool server never answered")

        names, shown = asyncio.run(call())
    finally:
        process.terminate()
        process.wait(timeout=30)
        channel.shutdown()
    assert names == E3_TOOLS
    assert task.data.info["vulnerable"].splitlines()[0] in shown
