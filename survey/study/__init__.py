"""The study: a TOML file parsed into pydantic models, and the cells and queries it defines."""
