"""Power and budget allocation by simulation, and validity by null split and sub-sampling."""
