"""The package."""
VERSION = "1.0"
