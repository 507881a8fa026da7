"""The example scheduling desk agent's parts: the tool client, the reading of a request's
wording, and the workflows (docs/scheduling-lab.md). Standard library only: the agent runs in a
sandbox with nothing but what it brings."""
