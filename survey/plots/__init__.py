"""Plots (matplotlib, Agg): functions take result objects and return a Figure; callers save them."""
