"""One labeled email, whatever its source: the raw RFC 5322 message plus its provenance."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

PHISHING = "Phishing"
LEGITIMATE = "Legitimate"
ABSTAIN = "Abstain"
LABELS = (PHISHING, LEGITIMATE, ABSTAIN)


@dataclass(frozen=True)
class EmailRecord:
    """A labeled email.

    `raw` is always a full RFC 5322 message (sources without headers are wrapped into one by
    their loader), so every source goes through the same parser and the same normalisation.
    `group` keeps related emails (one campaign template, one thread) in the same split.
    """

    id: str
    raw: str
    label: str  # PHISHING or LEGITIMATE
    source: str
    scenario: str
    group: str
    language: str = "en"
    split: str = "test"
    meta: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, row: dict[str, Any]) -> EmailRecord:
        return cls(**row)
