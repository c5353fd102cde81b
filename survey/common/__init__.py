"""Small shared helpers: number formatting and strict JSON, progress bars, thread limits."""
