"""Print the nbgitpuller link that pulls this course into a student's JupyterHub account and opens a notebook.

    python -m tools.hub_link https://hub.example.edu
    python -m tools.hub_link hub.example.edu https://github.com/owner/name --branch main
    python -m tools.hub_link hub.example.edu owner/name --notebook notebooks/03-one-row-by-hand.ipynb

The link has the form
    https://<hub>/hub/user-redirect/git-pull?repo=<url>&branch=main&urlpath=lab/tree/<repo>/notebooks/00-index.ipynb
where <repo> is the folder nbgitpuller clones into (the last part of the repository URL). The hub needs the
nbgitpuller server extension installed (`pip install nbgitpuller` in the hub's user image). A repository given as
"owner/name" means GitHub; the default is `repository` in tools/course.toml.
"""

from __future__ import annotations

import argparse
import re
from urllib.parse import quote, urlsplit

from tools import course

DEFAULT_NOTEBOOK = f"notebooks/{course.INDEX_STEM}.ipynb"


def repository_url(repo: str) -> str:
    """'owner/name' -> 'https://github.com/owner/name'; full URLs (https://, git@…) are kept as given."""
    repo = repo.strip()
    if course.REPOSITORY_FORMAT.fullmatch(repo):
        return f"https://github.com/{repo}"
    if not re.match(r"(https?://|git@)", repo):
        raise ValueError(f"repo: expected 'owner/name' or a repository URL, got {repo!r}")
    return repo.rstrip("/")


def hub_url(hub: str) -> str:
    """'hub.example.edu' or 'https://hub.example.edu/' -> 'https://hub.example.edu' (a path prefix is kept)."""
    hub = hub.strip().rstrip("/")
    if not re.match(r"https?://", hub):
        hub = "https://" + hub
    parts = urlsplit(hub)
    if not parts.netloc or parts.query or parts.fragment:
        raise ValueError(f"hub: expected a host such as 'hub.example.edu', got {hub!r}")
    return hub.removesuffix("/hub")


def clone_folder(repo_url: str) -> str:
    """The folder nbgitpuller clones into: the repository's name without .git."""
    name = re.split(r"[/:]", repo_url.rstrip("/"))[-1]
    return name.removesuffix(".git")


def nbgitpuller_link(
    hub: str,
    repo: str = course.REPOSITORY,
    *,
    branch: str = "main",
    notebook: str = DEFAULT_NOTEBOOK,
    interface: str = "lab",
) -> str:
    url = repository_url(repo)
    if course.PLACEHOLDER_REPOSITORY in url:
        raise ValueError(
            f"repo: tools/course.toml still has the placeholder {course.PLACEHOLDER_REPOSITORY}; "
            "pass the real repository"
        )
    urlpath = f"{interface}/tree/{clone_folder(url)}/{notebook.lstrip('/')}"
    # ':' and '/' may stay as they are in a query string; everything else that is special is percent-encoded.
    query = f"repo={quote(url, safe=':/@')}&branch={quote(branch, safe='')}&urlpath={quote(urlpath, safe='/')}"
    return f"{hub_url(hub)}/hub/user-redirect/git-pull?{query}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("hub", help="the JupyterHub, e.g. hub.example.edu or https://hub.example.edu")
    parser.add_argument(
        "repo",
        nargs="?",
        default=course.REPOSITORY,
        help="owner/name on GitHub or a git URL (default: repository in tools/course.toml)",
    )
    parser.add_argument("--branch", default="main")
    parser.add_argument("--notebook", default=DEFAULT_NOTEBOOK, help="the page to open, relative to the repository")
    parser.add_argument(
        "--interface",
        default="lab",
        choices=["lab", "tree"],
        help="lab = JupyterLab (default), tree = the classic file browser",
    )
    args = parser.parse_args(argv)
    try:
        print(
            nbgitpuller_link(args.hub, args.repo, branch=args.branch, notebook=args.notebook, interface=args.interface)
        )
    except ValueError as exc:
        parser.error(str(exc))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
