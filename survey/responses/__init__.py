"""Response types: how a reply becomes an answer, and what a valid answer is."""
