"""A YAML file read into a pydantic model, every problem one line naming the file and field."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from endstate.errors import EndstateError, first_problem

Model = TypeVar("Model", bound=BaseModel)


def yaml_data(content: str, where: str) -> Any:
    import yaml  # deferred: only the commands that read YAML pay for it

    try:
        return yaml.safe_load(content)
    except yaml.YAMLError as exc:
        raise EndstateError(f"{where}: not valid YAML ({str(exc).splitlines()[0]})") from None


def validated(model: type[Model], data: Any, where: str) -> Model:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise EndstateError(f"{where}: {first_problem(exc)}") from None
