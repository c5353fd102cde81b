"""Collection: the run plan, the engine that drives the backends, and the response store."""
