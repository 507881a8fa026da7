"""The price table (`--prices FILE`): what each model's tokens and images cost, per attempt.

A YAML or JSON mapping of model name to prices in US dollars:

    claude-sonnet-4-5: {input_per_mtok: 3.0, output_per_mtok: 15.0}
    gpt-4.1-mini: {input_per_mtok: 0.4, output_per_mtok: 1.6, per_image: 0.0}

`per_image` is for vendors that bill images apart from tokens; most count them as input
tokens already, so it is optional. The file's sha256 is pinned in the manifest: a cost is
only as good as the table it came from.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from endstate.errors import EndstateError
from endstate.manifest import PricesPin
from endstate.records import AttemptFacts


class ModelPrice(BaseModel):
    model_config = ConfigDict(extra="forbid")

    input_per_mtok: float = Field(ge=0, description="USD per million input tokens.")
    output_per_mtok: float = Field(ge=0, description="USD per million output tokens.")
    per_image: float | None = Field(default=None, ge=0, description="USD per image sent.")

    def cost(self, input_tokens: int, output_tokens: int, images: int) -> float:
        usd = input_tokens * self.input_per_mtok / 1e6 + output_tokens * self.output_per_mtok / 1e6
        return round(usd + images * (self.per_image or 0.0), 6)


@dataclass(frozen=True)
class PriceTable:
    path: Path
    sha256: str
    models: dict[str, ModelPrice]

    def pin(self) -> PricesPin:
        return PricesPin(path=str(self.path), sha256=self.sha256, models=sorted(self.models))

    def cost(self, model: str | None, facts: AttemptFacts) -> float | None:
        """The attempt's cost, when its model is in the table and it reported usage."""
        price = self.models.get(model) if model else None
        if price is None or facts.prompt_tokens is None:
            return None
        return price.cost(facts.prompt_tokens, facts.completion_tokens or 0, facts.images or 0)


def load_prices(path: Path) -> PriceTable:
    """Read and check a price table; anything wrong is one line naming the file and field."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise EndstateError(f"{path}: cannot read the price table ({exc.strerror})") from None
    try:
        data: Any = json.loads(raw) if path.suffix == ".json" else yaml.safe_load(raw)
    except (ValueError, yaml.YAMLError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise EndstateError(f"{path}: not valid YAML or JSON ({first})") from None
    if not isinstance(data, dict) or not data:
        raise EndstateError(
            f"{path}: expected a mapping of model name to "
            "{input_per_mtok, output_per_mtok, per_image}"
        )
    models: dict[str, ModelPrice] = {}
    for model, entry in data.items():
        try:
            models[str(model)] = ModelPrice.model_validate(entry)
        except ValidationError as exc:
            error = exc.errors()[0]
            where = ".".join(str(p) for p in (model, *error["loc"]))
            raise EndstateError(f"{path}: {where}: {error['msg']}") from None
    return PriceTable(path, hashlib.sha256(raw).hexdigest(), models)


def agent_model(config: dict[str, Any]) -> str | None:
    """The model an agent's manifest config names, at the top or under its backend."""
    model = config.get("model")
    backend = config.get("backend")
    if model is None and isinstance(backend, dict):
        model = backend.get("model")
    return model if isinstance(model, str) else None
