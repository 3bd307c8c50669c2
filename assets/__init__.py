"""Static assets shipped with the studio: icons and default lines."""

from pathlib import Path


def path(name: str) -> Path:
    """Absolute path of an asset file by name."""
    return Path(__file__).parent / name
