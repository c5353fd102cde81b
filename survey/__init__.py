"""survey: generative surveys with statistics that stay valid."""

__version__ = "0.1.0"
