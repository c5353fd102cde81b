"""The long response table (the contract between collection and analysis) and its sources."""
