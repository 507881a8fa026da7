"""The suite's runtime: the systems registry, the episode database and its tables, the server
and its admission bounds, the grading channel and the state document."""
