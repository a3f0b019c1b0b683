"""MkDocs hooks (mkdocs.yml): the README is the site's home page.

The README lives at the top of the repository, where GitHub and the package index show it,
and links into docs/ as ``docs/PAGE.md``; the site serves it as ``index.md`` with those links
made relative to docs/, so the one text is both.
"""
from __future__ import annotations

import re
from pathlib import Path

from mkdocs.structure.files import File, Files

README = Path(__file__).resolve().parent.parent / "README.md"


def readme_as_index(text: str) -> str:
    """The README's text with its links into docs/ made relative to docs/."""
    return re.sub(r"\]\(docs/", "](", text)


def on_files(files: Files, config) -> Files:
    files.append(File.generated(config, "index.md", content=readme_as_index(README.read_text(encoding="utf-8"))))
    return files
