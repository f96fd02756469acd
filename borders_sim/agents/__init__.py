"""Bots (policies that see observations only): empty until a later issue."""
