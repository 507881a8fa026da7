"""Sandboxes for agents the harness does not trust: namespaces, a view, a gateway, teardown."""
