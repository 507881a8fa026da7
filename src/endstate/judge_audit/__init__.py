"""How far to trust the judge: people grade a seeded sample of its verdicts, blind, and the
agreement between them and it is reported with its uncertainty."""
