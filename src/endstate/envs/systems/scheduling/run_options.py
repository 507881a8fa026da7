"""What a run may configure of the scheduling service: the chat model its simulated user
speaks through (`--system-option scheduling.user_model=M`, with `user_base_url`; the older
`--user-model` and `--user-base-url` are aliases). Without one, the user is scripted."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator

ALIASES = {"--user-model": "user_model", "--user-base-url": "user_base_url"}


class SchedulingOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    user_model: str | None = Field(
        default=None,
        description="The chat model the simulated user speaks through (default: scripted). "
        "It only words replies: approvals and facts stay the script's.",
    )
    user_base_url: str | None = Field(
        default=None, description="OpenAI-compatible endpoint of user_model."
    )

    @model_validator(mode="after")
    def _both(self) -> SchedulingOptions:
        if self.user_model is None and self.user_base_url is not None:
            raise ValueError("user_base_url needs user_model (--user-model)")
        if self.user_model is not None and self.user_base_url is None:
            raise ValueError(
                "user_model needs user_base_url (--user-base-url, an OpenAI-compatible endpoint)"
            )
        return self
