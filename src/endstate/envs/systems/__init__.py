"""The embedded suite's own systems, one folder each: routes (`app.py`), pages (`pages/`), the
state-document slice, fingerprint probes, and the `SYSTEM` that registers them."""
