"""An example tool-using agent for the scheduling lab, run as `command:python
examples/scheduling_desk_agent.py`: it reads its task on stdin (the instruction, the answer
fields of a lookup, the scheduling start URL), binds to its episode and works the request
through the tools over HTTP (docs/scheduling-lab.md). It sees only what any agent sees: the
task and the tools' answers.

It is scripted, not clever (`scheduling_desk/`): it reads the request's wording, finds the
patient (asking for a date of birth when two records fit), books, moves or cancels with the
user's approval, follows the user's corrections with new revisions, reconciles an unknown
outcome under the same idempotency key, holds a lapsed slot again, sends a message only with
its own approval, and answers a lookup with the JSON the answer fields ask for. With
--blind-retry it confirms again under a new key after an unknown outcome, as a careless client
would. The last line of stdout is {"claim": ..., "message": ..., "steps": ...}."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from scheduling_desk.client import Tools
from scheduling_desk.desk import Desk


def main() -> int:
    try:
        task = json.load(sys.stdin)
        start = task["start_urls"]["scheduling"]
    except (ValueError, KeyError, TypeError) as exc:
        print(json.dumps({"claim": "error", "message": f"unreadable task on stdin: {exc!r}"}))
        return 1
    tools = Tools(start)
    claim, message = Desk(tools, task, blind_retry="--blind-retry" in sys.argv[1:]).run()
    print(json.dumps({"claim": claim, "message": message, "steps": tools.calls}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
