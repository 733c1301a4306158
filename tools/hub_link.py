"""Print the nbgitpuller link that pulls this course into a student's JupyterHub account and opens a notebook.

    python -m tools.hub_link https://hub.example.edu
    python -m tools.hub_link hub.example.edu https://gitlab.com/team/course.git --branch spring
    python -m tools.hub_link hub.example.edu owner/name --notebook notebooks/03-one-row-by-hand.ipynb
    python -m tools.hub_link hub.example.edu owner/name --edition en   # the English edition's course map
    python -m tools.hub_link hub.example.edu owner/name --parent-path courses   # a hub with NBGITPULLER_PARENTPATH

The link has the form
    https://<hub>/hub/user-redirect/git-pull?repo=<url>&targetpath=<folder>&urlpath=lab/tree/<folder>/notebooks/00-index.ipynb
nbgitpuller clones into <folder> (under $NBGITPULLER_PARENTPATH if the hub sets it, relative to the server's root);
the link names that folder itself (`targetpath`), so the page it opens is where the files are whatever the URL
looks like (nbgitpuller's own default keeps a `.git` ending: `course.git/`). Without `--branch` (and without
`branch` in tools/course.toml) the link names no branch and nbgitpuller pulls the repository's default branch. The
hub needs the nbgitpuller server extension (`pip install nbgitpuller` in the hub's user image). A repository given
as "owner/name" means GitHub; the default is `repository` in tools/course.toml.
"""

from __future__ import annotations

import argparse
import re
from urllib.parse import quote, urlsplit

from tools import course
from tools import repository as repo_setting

DEFAULT_NOTEBOOK = f"notebooks/{course.INDEX_STEM}.ipynb"
EDITION_INDEX = {"zh": DEFAULT_NOTEBOOK, "en": f"notebooks/en/{course.INDEX_STEM}.ipynb"}  # what --edition opens
FOLDER = re.compile(r"\w[\w.-]*")  # one folder name (Unicode letters allowed), no path


def repository_url(repo: str) -> str:
    """'owner/name' -> 'https://github.com/owner/name'; full URLs (https://, git@…, file:// for a repository on the
    Hub's own machine) are kept as given."""
    repo = repo.strip()
    if course.REPOSITORY_FORMAT.fullmatch(repo):
        return f"https://github.com/{repo}"
    if not re.match(r"(https?://|git@|file:///)", repo):
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
    """The folder the link asks nbgitpuller to clone into (`targetpath`): the repository's name without .git."""
    name = re.split(r"[/:]", repo_url.rstrip("/"))[-1].removesuffix(".git")
    if not FOLDER.fullmatch(name):
        raise ValueError(f"repo: cannot name a folder after {repo_url!r}")
    return name


def nbgitpuller_link(
    hub: str,
    repo: str = course.REPOSITORY,
    *,
    branch: str = course.BRANCH,
    notebook: str = DEFAULT_NOTEBOOK,
    interface: str = "lab",
    folder: str | None = None,
    parent_path: str = "",
) -> str:
    """The git-pull link; `branch` "" = none (the repository's default branch), `parent_path` = the hub's
    NBGITPULLER_PARENTPATH (nbgitpuller clones into it, so the page to open is under it too)."""
    url = repository_url(repo)
    if repo_setting.is_placeholder(repo) or course.PLACEHOLDER_REPOSITORY in url:
        raise ValueError(
            f"repo: tools/course.toml still has the placeholder {course.PLACEHOLDER_REPOSITORY}; "
            f"pass the real repository or {repo_setting.HOW_TO_SET}"
        )
    folder = folder or clone_folder(url)
    if not FOLDER.fullmatch(folder):
        raise ValueError(f"folder: expected a plain folder name, got {folder!r}")
    parent = parent_path.strip("/")
    tree = f"{parent}/{folder}" if parent else folder
    urlpath = f"{interface}/tree/{tree}/{notebook.lstrip('/')}"
    # ':' and '/' may stay as they are in a query string; everything else that is special is percent-encoded.
    query = f"repo={quote(url, safe=':/@')}&targetpath={quote(folder, safe='')}"
    if branch:
        query += f"&branch={quote(branch, safe='')}"
    query += f"&urlpath={quote(urlpath, safe='/')}"
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
    parser.add_argument(
        "--branch",
        default=course.BRANCH,
        help="the branch to pull (default: branch in tools/course.toml; none = the repository's default branch)",
    )
    parser.add_argument(
        "--parent-path",
        default="",
        help="the hub's NBGITPULLER_PARENTPATH, if it sets one (the folder nbgitpuller clones into)",
    )
    parser.add_argument("--notebook", help="the page to open, relative to the repository (default: --edition's map)")
    parser.add_argument(
        "--edition",
        default="zh",
        choices=sorted(EDITION_INDEX),
        help="zh = open the Chinese course map (default), en = the English edition's (notebooks/en/)",
    )
    parser.add_argument(
        "--interface",
        default="lab",
        choices=["lab", "tree"],
        help="lab = JupyterLab (default), tree = the classic file browser",
    )
    args = parser.parse_args(argv)
    try:
        print(
            nbgitpuller_link(
                args.hub,
                args.repo,
                branch=args.branch,
                notebook=args.notebook or EDITION_INDEX[args.edition],
                interface=args.interface,
                parent_path=args.parent_path,
            )
        )
    except ValueError as exc:
        parser.error(str(exc))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
