"""What a teacher adopting the book relies on: its licences, its citation, its version and
the route for errata agree with each other and with the book's configuration."""

import re
import tomllib
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent


def config() -> dict:
    return yaml.safe_load((REPO / "_config.yml").read_text())


def citation() -> dict:
    return yaml.safe_load((REPO / "CITATION.cff").read_text())


def version() -> str:
    return tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]


def test_citation_names_the_book_its_version_licences_and_repository():
    cff = citation()
    assert cff["cff-version"] == "1.2.0"
    assert cff["title"] == config()["title"]
    assert cff["authors"] == [{"name": config()["author"]}]
    assert cff["version"] == version()
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(cff["date-released"]))
    assert sorted(cff["license"]) == ["CC-BY-4.0", "MIT"]
    assert cff["repository-code"] == config()["repository"]["url"]
    assert cff["message"]


def test_the_changelog_opens_with_this_version_and_its_date():
    changelog = (REPO / "CHANGELOG.md").read_text()
    first = re.search(r"^## \[(?P<version>[^\]]+)\] - (?P<date>\S+)", changelog, re.M)
    assert first, "CHANGELOG.md has no '## [version] - date' entry"
    assert first["version"] == version()
    assert first["date"] == str(citation()["date-released"])


def test_both_licences_are_in_the_repository_and_in_the_readme():
    assert "MIT License" in (REPO / "LICENSE-CODE").read_text()
    overview = (REPO / "LICENSE.md").read_text()
    assert "CC BY 4.0" in overview and "MIT" in overview
    readme = (REPO / "README.md").read_text()
    section = readme[readme.index("## Licence"):]
    assert "CC BY 4.0" in section and "MIT" in section


def test_every_page_footer_states_the_licences_and_links_errata_to_the_repository():
    html = config()["html"]
    url = config()["repository"]["url"].rstrip("/")
    footer = html["extra_footer"]
    assert html.get("use_issues_button") is True
    assert "CC BY 4.0" in footer and "MIT" in footer
    links = re.findall(r'href="([^"]+)"', footer)
    errata = [link for link in links if "/issues" in link]
    assert errata and all(link.startswith(url + "/issues") for link in errata), links
    assert "erratum" in footer.lower()
    repo_links = [link for link in links if "github.com" in link]
    assert all(link.startswith(url + "/") for link in repo_links), (url, repo_links)
    assert f"version {version()}" in footer
