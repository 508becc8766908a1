#!/usr/bin/env python3
"""Builds the SourceForge reviews pages of the replay fixture.

The review values (author, stars, date, text, helpful count) and the project's
rating summary (name, average, reviews per star, ease/features/design/support)
come unchanged from the real crawl output `sourceforge_crawl_output_sample.jsonl`
(project "OpenProj - Project Management"). The markup around them follows the
2019 reviews-page selectors the crawler used (see README.md). Run it from this
directory: `python3 build_pages.py`; it rewrites every generated .html file.
"""

import html
import json

RECORDING = "sourceforge_crawl_output_sample.jsonl"
PROJECT = "OpenProj - Project Management"
PAGE_SIZE = 25


def esc(text):
    return html.escape(text, quote=True)


def header(name):
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{esc(name)} - Reviews</title>
</head>
<body id="pg_project">
<div class="main-content">
<div class="project-header">
<div class="title"><h1>{esc(name)}</h1></div>
</div>
"""


FOOTER = """</div>
</body>
</html>
"""


def ratings_box(ratings):
    rows = "".join(
        f'<li class="stars-{n}"><span class="stars-title">{n} star{"s" if n > 1 else ""}</span> '
        f'<span class="rating-label">{esc(ratings[f"star_{n}"])}</span></li>\n'
        for n in range(5, 0, -1)
    )
    dims = "".join(
        f'<div class="dimensional-rating"><span class="label">{esc(key)}</span> '
        f'<span class="rating-score"><span class="dim-rate">{esc(ratings[key].split("/")[0])}</span> of 5</span></div>\n'
        for key in ("ease", "features", "design", "support")
    )
    return f"""<div class="row">
<section class="user-ratings">
<h2>User Ratings</h2>
<div class="rating"><span class="average">{esc(ratings["average"])}</span> out of 5</div>
<ul class="rating-distribution">
{rows}</ul>
<div class="dimensional-ratings">
{dims}</div>
</section>
"""


def review_item(key, review):
    name = key.split("_")[0] if key.startswith("<REDACTED>_") else key
    stars = "".join(
        '<span class="star  yellow"></span>' if i < review["stars"] else '<span class="star  "></span>'
        for i in range(5)
    )
    if name == "<REDACTED>":
        author = f'<span class="author-name">{esc(name)}</span>'
    else:
        author = f'<a class="author-name" href="/u/{esc(name)}/">{esc(name)}</a>'
    count = review["help-count"]
    helpful = (
        f'<span class="helpful-count"><span class="user-count">{esc(count)}</span> found this review helpful</span>'
        if count != "0"
        else '<span class="helpful-count"></span>'
    )
    return f"""<li>
<div class="stars">{stars}</div>
<div class="review-txt-outer"><div class="review-txt">{esc(review["review_txt"])}</div></div>
<div class="footer">{author} <span class="created-date">Posted {esc(review["date"])}</span> {helpful}</div>
</li>
"""


def listing_page(project, items):
    body = "".join(review_item(k, v) for k, v in items)
    return (
        header(project["name"])
        + ratings_box(project["user-ratings"])
        + f'<ul id="project-reviews">\n{body}</ul>\n</div>\n'
        + FOOTER
    )


def empty_page(name, ratings):
    box = ratings_box(ratings) if ratings else '<div class="row">\n'
    return (
        header(name)
        + box
        + '<div class="info-no-reviews">There are no reviews yet.</div>\n</div>\n'
        + FOOTER
    )


def write(path, text):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def main():
    with open(RECORDING, encoding="utf-8") as f:
        projects = [json.loads(line) for line in f if line.strip()]
    project = next(p for p in projects if p["name"] == PROJECT)
    reviews = list(project["user_reviews"].items())

    def pages(prefix, items):
        for offset in range(0, len(items), PAGE_SIZE):
            write(f"{prefix}-offset-{offset}.html", listing_page(project, items[offset : offset + PAGE_SIZE]))

    pages("openproj", reviews)
    for n in range(1, 6):
        rated = [(k, v) for k, v in reviews if v["stars"] == n]
        if rated:
            pages(f"openproj-stars-{n}", rated)
        else:
            write(f"openproj-stars-{n}-offset-0.html", empty_page(project["name"], project["user-ratings"]))

    write("no-reviews.html", empty_page("Quiet Example Project", None))
    write(
        "reviews-not-allowed.html",
        header("Closed Example Project")
        + '<div class="row">\n<p>This project does not allow reviews to be posted.</p>\n</div>\n'
        + FOOTER,
    )
    write(
        "layout-changed.html",
        header("Redesigned Example Project")
        + '<div class="row">\n<section class="reviews-v2"><article class="review-card">'
        + "<p>Solid tool.</p><span>Posted 03/01/2024</span></article></section>\n</div>\n"
        + FOOTER,
    )


if __name__ == "__main__":
    main()
