"""The red team: hostile agents run against the installed harness, judged from outside."""
