"""The YAML recipes of `sv train sft` and `sv train rl`, as pydantic models.

Loading never shows a traceback for a user mistake: every problem becomes one `UserError` that
names the file and the field (`configs/rlft/e1.yaml: grpo.num_generations: ...`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from security_verifiers.environments import default_env, resolve_env
from security_verifiers.errors import UserError
from security_verifiers.training.tracker import ReportTo, check_reporter


class Strict(BaseModel):
    """Unknown keys are errors, so a typo never silently falls back to a default."""

    model_config = ConfigDict(extra="forbid")


class LoraSettings(Strict):
    r: int = Field(16, ge=1)
    alpha: int = Field(32, ge=1)
    dropout: float = Field(0.05, ge=0.0, lt=1.0)
    target_modules: str | list[str] = "all-linear"
    """PEFT's `all-linear` works for any causal LM; or list module names."""
    layers: int | None = Field(None, ge=1)
    """Adapt only the top N transformer blocks (null: every block). Backward stops below the
    lowest adapted block, so a step costs less compute and holds fewer activations."""


class RolloutSource(Strict):
    """Eval runs to rejection-sample: rollouts whose total reward is at least `min_reward`."""

    path: str
    """A results.jsonl file, a run directory, or a glob of either."""
    min_reward: float = 0.0
    max_examples: int | None = Field(None, ge=1)


class SFTData(Strict):
    env: str = Field(default_factory=default_env)
    """The environment (default: the first registered one by key)."""
    env_args: dict[str, Any] = Field(default_factory=lambda: {"split": "train"})
    gold: bool = True
    """Chat examples from the training split's verified answers."""
    rationale: bool = True
    """Add a short rationale (from the example's metadata) to the gold answer."""
    evidence_order: Literal["name", "frequency"] = "name"
    """E4's gold evidence (the indicators the extractor confirmed on the email), in the order
    name: alphabetical; frequency: the indicators that fire most often on the examples'
    phishing emails first, so a model that names only the first few names the likeliest."""
    evidence_max: int = Field(4, ge=0)
    """At most this many indicators in a gold evidence list (E4's reward gives full credit for
    three confirmed ones)."""
    confidence: float = Field(0.9, ge=0.0, le=1.0)
    """Confidence written into gold answers of classification environments (with `calibrate`,
    the cap)."""
    calibrate: bool = False
    """Calibrated gold answers: the confidence is how often the gold label holds among the
    training items that look the same to the model (E1: the same flow apart from its
    addresses; E4: the same email), capped at `confidence`; where that falls below the
    environment's abstention threshold for the label, the answer is Abstain."""
    calibration: Literal["look_alike", "cross_fit", "cross_fit_groups"] = "look_alike"
    """How `calibrate` estimates the chance that the gold label holds: `look_alike`, its
    frequency among items that look the same; `cross_fit`, the probability a text classifier
    trained on the other folds of the training split gives it (for corpora such as E4's where
    no two items look the same); `cross_fit_groups`, the same with folds that keep each
    template group (`info.group`) whole, so the classifier never saw the item's template."""
    reference_policy: str | None = None
    """For environments without a gold-answer renderer: a built-in model (e.g. E3
    `reference-fix`) whose answers become examples."""
    min_reward: float = 0.0
    """Gold and reference answers are scored by the environment's reward and kept only when it
    reaches this value (verified answers)."""
    max_examples: int | None = Field(None, ge=1)
    rollouts: list[RolloutSource] = Field(default_factory=list)
    rl_groups: float = Field(0.0, ge=0.0, lt=1.0)
    """Share of the training split's template groups (`info.group`) SFT leaves out, per gold
    label, so that an RL stage with `envs.<env>.rows: sft_held_out` samples mail of templates
    the policy has not trained on (`training/group_holdout.py`); recorded in datasets.json."""
    seed: int = 42


class SFTTrain(Strict):
    max_steps: int = Field(60, ge=1)
    epochs: float | None = Field(None, gt=0)
    """When set, train this many passes over the examples (overrides max_steps)."""
    learning_rate: float = Field(2e-4, gt=0)
    batch_size: int = Field(8, ge=1)
    grad_accum: int = Field(1, ge=1)
    max_length: int = Field(1024, ge=16)
    warmup_ratio: float = Field(0.05, ge=0.0, lt=1.0)
    adam_beta2: float = Field(0.999, gt=0.0, lt=1.0)
    """AdamW's second-moment decay. 0.95 forgets the large gradients of the first steps (the
    answer format) within ~20 steps; at 0.999 they damp the later, small label gradients for
    hundreds of steps."""
    logging_steps: int = Field(5, ge=1)
    save_steps: int = Field(20, ge=1)
    completion_only_loss: bool = True
    decision_weight: float = Field(1.0, ge=0.0)
    """The weight of each answer's decision token (the label word's first token after
    `{"label": "`) in the mean token loss; 1: a token like any other, below 1 a gentler step
    on the label than on the rest, 0 none. The decision accuracy is logged either way
    (training/decision_tokens.py)."""
    confidence_weight: float = Field(1.0, ge=0.0)
    """The weight of each token of the answer's stated confidence (the digits and point after
    `"confidence": `), as `decision_weight` for the label: the calibration reward reads only
    these tokens."""
    activation_checkpointing: bool = False
    """Each decoder layer keeps only its input and recomputes the rest in the backward pass:
    less activation memory for ~1.1-1.3x the step time (E4, 135M, LoRA on every block, batch
    4: 2.1 instead of 3.6 GB). Exact, with `share_prompt_prefix` too."""
    group_by_length: bool = True
    """Batch examples of similar length (less padding); off: plain random batches."""
    label_balanced: bool = False
    """Classification answers (a JSON `label`): every batch holds the labels in the data's
    proportions (examples shuffled within each label, then interleaved, read in order).
    Replaces `group_by_length`."""
    packing: bool = False
    """Pack several examples into one sequence (TRL BFD packing); best with flash attention
    on a GPU, where sequences stay separate (padding-free)."""
    share_prompt_prefix: bool = True
    """Run the prompt prefix every row of a batch shares (chat template + system prompt) once
    per batch instead of once per row, and project only trained positions onto the vocabulary
    (training/prefix_sharing.py; same loss and gradients). Off: TRL's own loss."""
    release_memory_every: int = Field(10, ge=0)
    """On CPU, every this many steps hand the C heap's free pages back to the OS (glibc
    `malloc_trim`): batches of changing length fragment the heap, and without it resident
    memory only ever grows (E4 SFT: 8 GB by step 138 for ~1.2 GB live). 0: never."""
    pad_to_multiple_of: int | None = Field(None, ge=1)
    """Pad each batch to a multiple of this many tokens. On a CPU every new batch shape adds
    kernels to oneDNN's primitive cache, which stays resident: E4 batches of every length from
    ~400 to ~700 tokens grew resident memory ~25 MB per step without end; padded to a
    multiple of 64 it nearly stopped growing after ~15 steps. None: pad to the longest row."""
    seed: int = 42


Dtype = Literal["auto", "float32", "bfloat16", "float16"]


class SFTRecipe(Strict):
    stage: str = "sft"
    model: str = "smollm2-135m"
    dtype: Dtype = "auto"
    """auto: bfloat16 on a GPU or CPU with native bf16, else float32 (see runtime.py)."""
    threads: int | None = Field(None, ge=1)
    """torch CPU threads (default: every CPU this process may use)."""
    data: SFTData = Field(default_factory=SFTData)
    lora: LoraSettings = Field(default_factory=LoraSettings)
    train: SFTTrain = Field(default_factory=SFTTrain)
    save_merged: bool = True
    output_root: Path = Path("outputs/checkpoints")
    report_to: ReportTo = "none"
    """Send the trainer's metrics to W&B (`wandb`) or Trackio (`trackio`); opt-in, works
    offline (training/tracker.py). The checkpoint records where they went."""
    tracker_project: str | None = None
    """The tracker's project (default security-verifiers)."""


class EnvSettings(Strict):
    env_args: dict[str, Any] = Field(default_factory=lambda: {"split": "train"})
    reward_weights: dict[str, float] = Field(default_factory=dict)
    """Per reward component (names from the environment's rubric); omitted ones keep the
    environment's defaults, 0 switches one off."""
    max_examples: int | None = Field(None, ge=1)
    rows: Literal["all", "sft_held_out"] = "all"
    """all: every row of the split; sft_held_out: only the rows of the template groups the
    start checkpoint's SFT left out (its `data.rl_groups`)."""
    target: str | None = None
    """E5: the attacked model — a built-in model (e.g. `guarded`), `hf:<checkpoint>`, an
    endpoint name, or `self` (the policy being trained)."""


class Stage(Strict):
    envs: list[str] = Field(min_length=1)
    steps: int = Field(ge=1)
    name: str | None = None
    mix: dict[str, float] | None = None
    """Sampling weight per environment of a mixed stage (default: equal)."""

    @property
    def label(self) -> str:
        return self.name or "+".join(self.envs)


class AlternationPhase(Strict):
    env: str
    steps: int = Field(ge=1)


def _attacker_env() -> str:
    """The first environment that plays against a target model (E5)."""
    return default_env("needs_target")


def _defender_env() -> str:
    """The opponent of the attacker environment (E6 for E5)."""
    attacker = resolve_env(_attacker_env())
    if not attacker.spec.opponent:
        raise UserError(f"environment '{attacker.env_id}' names no opponent to alternate with")
    return resolve_env(attacker.spec.opponent).key


class Alternation(Strict):
    """Attacker phase (E5), then defender phase (E6), `rounds` times, on one policy; the
    defaults are the environment that needs a target and its spec's opponent."""

    rounds: int = Field(1, ge=1)
    attacker: AlternationPhase = Field(
        default_factory=lambda: AlternationPhase(env=_attacker_env(), steps=4)
    )
    defender: AlternationPhase = Field(
        default_factory=lambda: AlternationPhase(env=_defender_env(), steps=4)
    )


class GRPOSettings(Strict):
    num_generations: int = Field(4, ge=2)
    prompts_per_step: int = Field(2, ge=1)
    max_completion_length: int = Field(64, ge=4)
    temperature: float = Field(1.0, gt=0)
    top_p: float = Field(1.0, gt=0, le=1)
    learning_rate: float = Field(5e-6, gt=0)
    beta: float = Field(0.0, ge=0)
    loss_type: str = "dapo"
    scale_rewards: str = "group"
    logging_steps: int = Field(1, ge=1)
    save_steps: int = Field(10, ge=1)
    activation_checkpointing: bool = False
    seed: int = 42
    use_vllm: bool = False
    """Generate with vLLM (TRL's GRPO vLLM integration; needs a CUDA GPU and the vllm
    package, checked when training starts). Off: generation with the policy itself."""
    vllm_mode: Literal["colocate", "server"] = "colocate"
    """colocate: vLLM in the training process, sharing the GPU; server: a separate
    `trl vllm-serve` process at `vllm_server_base_url`."""
    vllm_server_base_url: str | None = Field(None, pattern=r"^https?://[^\s/]+(/.*)?$")
    """`server` mode: the URL of `trl vllm-serve` (default TRL's http://0.0.0.0:8000)."""
    vllm_gpu_memory_utilization: float = Field(0.3, gt=0, le=1)
    """`colocate` mode: the share of GPU memory vLLM may take."""
    vllm_tensor_parallel_size: int = Field(1, ge=1)
    """`colocate` mode: GPUs one vLLM engine spans."""

    @model_validator(mode="after")
    def _vllm(self) -> GRPOSettings:
        if self.vllm_server_base_url and self.vllm_mode != "server":
            raise ValueError("vllm_server_base_url is for vllm_mode: server")
        return self


class ExpertIteration(Strict):
    """Rejection-sampling fine-tuning: per round, `prompts` training prompts x `k` samples."""

    k: int = Field(4, ge=2)
    prompts: int = Field(16, ge=1)
    keep: Literal["above_mean", "best"] = "above_mean"
    """above_mean: samples whose reward beats their group's mean; best: each group's best."""
    min_reward: float = 0.0
    """A kept sample must also reach this reward."""
    sampler: Literal["auto", "llama", "transformers"] = "auto"
    """llama: each round, export the policy to GGUF and sample in-process with llama.cpp
    (several times faster on a CPU; llama models matching the shipped GGUF's shapes and
    tokenizer); transformers: sample from the training model itself; auto: llama where the
    policy can be exported, else transformers."""
    llama_threads: int | None = Field(None, ge=1)
    """llama.cpp threads for `sampler: llama` (default: the runtime's). On a CPU shared with
    other work use 1: llama.cpp's threads spin-wait on each other (measured 11-53 tokens/s
    with 1 thread vs ~5 with 2 on 2 busy cores)."""
    sample_prompts: int | None = Field(None, ge=1)
    """`sampler: transformers`: prompts decoded together in one generate call (left-padded,
    k answers each). None: 1 on a CPU, 16 on an accelerator."""
    temperature: float = Field(1.0, gt=0)
    max_completion_length: int = Field(48, ge=4)
    batch_size: int = Field(4, ge=1)
    grad_accum: int = Field(1, ge=1)
    """Micro-batches per optimizer step: each step trains on batch_size x grad_accum answers,
    while activation memory follows batch_size alone."""
    pad_to_multiple_of: int | None = Field(None, ge=1)
    """As `train.pad_to_multiple_of`, for each round's SFT steps."""
    decision_weight: float = Field(1.0, ge=0.0)
    """As `train.decision_weight`, for each round's SFT steps."""
    confidence_weight: float = Field(1.0, ge=0.0)
    """As `train.confidence_weight`, for each round's SFT steps (with `confidence: group` the
    stated confidences are the group's rewritten shares)."""
    activation_checkpointing: bool = False
    """As `train.activation_checkpointing`, for each round's SFT steps: each decoder layer
    keeps only its input and recomputes the rest in the backward pass. Exact (the shared
    prompt prefix included); less memory for more time per step."""
    learning_rate: float = Field(1e-4, gt=0)
    sft_steps: int = Field(4, ge=1)
    """Optimizer steps on each round's kept samples."""
    optimizer_scope: Literal["round", "stage"] = "round"
    """round: each round's SFT steps start a fresh AdamW and their own cosine schedule (from
    `learning_rate` to 0 in `sft_steps`); stage: one AdamW and one cosine schedule run through
    all the stage's rounds (rounds x `sft_steps` steps), so the moment estimates carry over and
    later rounds take smaller steps."""
    decision_from: Literal["all", "mixed"] = "all"
    """Which kept answers train the decision token (the label word's first token). all:
    every kept answer. mixed: only those from groups whose k answers gave different labels;
    a kept answer from a group that agreed trains the rest of itself (evidence, confidence,
    format) but not its label, as under GRPO, whose group-centred advantages cancel on a
    token every answer of the group shares. Each round logs `kept_groups` and
    `decision_trained`; on E4 at learning rate 1e-3 the label drifted under either setting,
    and most with the label untrained, so the step size drove it (docs/training-log.md)."""
    label_balanced: bool = True
    """Each round's SFT steps read the kept answers interleaved by the gold label of their
    prompt, in equal shares (a round trains on a few batches of what it kept, which need not
    hold both labels). Without it E4's expert iteration drifted to Legitimate: recall 0.76 ->
    0.46 in 8 rounds (issue 21 note). Off: length-grouped batches."""
    prune_fields: list[str] = Field(default_factory=list)
    """JSON list fields of the answers (E4: `evidence`) searched before selection: a sampled
    answer is replaced by the subset of that list (every subset of up to 5 items, order kept)
    that the environment's reward scores highest, where one beats it. Teaches naming only what
    the reward confirms (training/list_pruning.py)."""
    confidence: Literal["sampled", "group"] = "sampled"
    """sampled: a kept answer trains with the confidence it was sampled with; group: with the
    share of its group's k answers that gave the same label, clipped to [0.5,
    confidence_cap]: the policy's own rate of giving that label to this prompt, which is the
    confidence with the best expected calibration score when the label is right. A sampled
    confidence is whatever the SFT data taught (E4: always 0.9) and rarely varies, so
    without this the calibration reward has nothing to select among."""
    confidence_cap: float = Field(0.95, gt=0.5, le=1.0)
    """The highest confidence `confidence: group` writes."""
    confidence_prior: float = Field(0.0, ge=0.0)
    """With `confidence: group`: pseudo-answers at the round's pooled share (over the kept
    answers' groups) added to each group before taking the share, a Beta prior. 0 keeps the
    raw share. A share from k samples is noisy, and a small model fits the most frequent
    target rather than the mean: with the raw share E4's clipped 0.5 was the commonest target
    and every evaluated answer came to say 0.5 (issue 21 note). Shrinking pulls the targets
    toward the pooled share."""
    max_length: int = Field(512, ge=16)
    select_split: str | None = None
    """Round selection (early stopping): the split of each environment (e.g. `dev`, which
    neither SFT nor RL trains on) whose first `select_items` rows (shuffled by `seed`) score
    the policy's greedy answers before the first round and after each. The stage ends on the
    adapter with the highest mean reward there: the start when no round beats it. None: the
    stage ends on its last round."""
    select_items: int | None = Field(96, ge=1)
    """Held-out rows per score; None: every row of `select_split`."""
    select_rounds: Literal["all", "last"] = "all"
    """Which adapters round selection scores besides the start: every round's, or only the
    last round's (the stage then ends on its last round or its start; half the scoring cost
    of a 3-round stage)."""
    select_workers: int | None = Field(None, ge=1)
    """`sampler: llama`: llama.cpp contexts answering the held-out rows side by side, the
    threads split among them. None: one per llama thread (on a 135M model one context's
    threads scale poorly)."""
    seed: int = 42


class RLRecipe(Strict):
    stage: str = "rl"
    model: str = "smollm2-135m"
    dtype: Dtype = "auto"
    threads: int | None = Field(None, ge=1)
    algorithm: Literal["grpo", "expert_iteration"] = "grpo"
    """grpo: TRL GRPOTrainer; expert_iteration: sample k answers per prompt, keep the good
    ones (rejection sampling), SFT on them — one round per stage step."""
    envs: dict[str, EnvSettings] = Field(min_length=1)
    stages: list[Stage] | None = None
    alternation: Alternation | None = None
    grpo: GRPOSettings = Field(default_factory=GRPOSettings)
    expert_iteration: ExpertIteration = Field(default_factory=ExpertIteration)
    lora: LoraSettings = Field(default_factory=LoraSettings)
    save_merged: bool = True
    output_root: Path = Path("outputs/checkpoints")
    report_to: ReportTo = "none"
    """Send the trainer's metrics to W&B (`wandb`) or Trackio (`trackio`); opt-in, works
    offline (training/tracker.py). The checkpoint records where they went."""
    tracker_project: str | None = None
    """The tracker's project (default security-verifiers)."""

    @model_validator(mode="after")
    def _schedule(self) -> RLRecipe:
        if (self.stages is None) == (self.alternation is None):
            raise ValueError("give exactly one of `stages` (curriculum) or `alternation`")
        if self.grpo.use_vllm and self.algorithm != "grpo":
            raise ValueError("grpo.use_vllm applies to algorithm: grpo only")
        for stage in self.schedule():
            missing = [e for e in stage.envs if e not in self.envs]
            if missing:
                raise ValueError(f"stage '{stage.label}' uses {missing}, not declared in `envs`")
            for name in stage.mix or {}:
                if name not in stage.envs:
                    raise ValueError(f"stage '{stage.label}': mix names '{name}', not in its envs")
        return self

    def schedule(self) -> list[Stage]:
        """The stages in order; an alternation expands to attacker/defender stage pairs."""
        if self.stages is not None:
            return list(self.stages)
        assert self.alternation is not None
        out = []
        for i in range(self.alternation.rounds):
            a, d = self.alternation.attacker, self.alternation.defender
            out.append(Stage(envs=[a.env], steps=a.steps, name=f"round{i + 1}-attacker"))
            out.append(Stage(envs=[d.env], steps=d.steps, name=f"round{i + 1}-defender"))
        return out


Recipe = TypeVar("Recipe", SFTRecipe, RLRecipe)


def _describe(exc: ValidationError, source: str) -> str:
    lines = []
    for error in exc.errors():
        loc = ".".join(str(p) for p in error.get("loc", ())) or "(top level)"
        message = str(error.get("msg", "invalid")).removeprefix("Value error, ")
        lines.append(f"{source}: {loc}: {message}")
    return "\n".join(lines)


def load_recipe(path: Path, kind: type[Recipe], overrides: dict[str, Any] | None = None) -> Recipe:
    """Read and validate a recipe file; `overrides` are dotted keys (`train.max_steps`), each
    applied as given (None sets the field to null)."""
    try:
        raw = yaml.safe_load(path.read_text())
    except FileNotFoundError:
        raise UserError(f"config file not found: {path}") from None
    except (OSError, yaml.YAMLError) as exc:
        raise UserError(f"cannot read {path}: {exc}") from None
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise UserError(f"{path}: expected a mapping at the top level")
    for dotted, value in (overrides or {}).items():
        node = raw
        *parents, leaf = dotted.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    try:
        recipe = kind.model_validate(raw)
    except ValidationError as exc:
        raise UserError(_describe(exc, str(path))) from None
    _check_envs(recipe, path)
    try:
        check_reporter(recipe.report_to)
    except UserError as exc:
        raise UserError(f"{path}: {exc}") from None
    return recipe


def _check_envs(recipe: SFTRecipe | RLRecipe, path: Path) -> None:
    names = [recipe.data.env] if isinstance(recipe, SFTRecipe) else list(recipe.envs)
    for name in names:
        try:
            resolve_env(name)
        except UserError as exc:
            field = "data.env" if isinstance(recipe, SFTRecipe) else f"envs.{name}"
            raise UserError(f"{path}: {field}: {exc}") from None
