"""The files a build of the site writes: its own pages, its Documentation pages, the stylesheet."""

from __future__ import annotations

from gauntlet.site.build import PAGES, STYLESHEET
from gauntlet.site.docs import find_docs_dir, read_docs

DOC_FILES = tuple(doc.file for doc in read_docs(find_docs_dir()))
"""`docs/*.md`, rendered."""

PAGE_FILES = (*(page.file for page in PAGES), *DOC_FILES)
"""Every page of a site built without a run history."""

SITE_FILES = (*PAGE_FILES, STYLESHEET)
"""Every file of a site built without a run history."""
