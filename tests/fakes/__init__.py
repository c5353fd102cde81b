"""Fake provider servers on 127.0.0.1, driven through the real SDKs (see common.py)."""
