#!/usr/bin/env python3
"""Builds the G2 reviews pages of the replay fixture.

The review values (reviewer name, profile link, role, company size, badges,
date, rating, title, "like best" and "dislike" answers) come unchanged from the
recorded scraper output `g2-scrapfly-reviews-digitalocean-2025-12.json` (30
reviews of https://www.g2.com/products/digitalocean/reviews). The markup around
them follows the current G2 review-card markup public collectors document
(`section#reviews article#<slug>-review-<digits>`, `elv-*` classes); see
README.md for what is documented and what is assumed. Run it from this
directory: `python3 build_pages.py`; it rewrites every generated g2-*.html file.
"""

import html
import json

RECORDING = "g2-scrapfly-reviews-digitalocean-2025-12.json"
SLUG = "digitalocean"
PRODUCT = "DigitalOcean"
PAGE_SIZE = 10
FIRST_ID = 11900001

# Not in the recording: placeholder review ids (FIRST_ID + the recording's
# index), helpful-vote counts on four reviews, and one "problems solved" answer,
# added so that the fixture exercises those parts of the card.
HELPFUL = {0: 3, 7: 2, 12: 1, 20: 5}
PROBLEMS = {
    6: "Hosting our web applications without running our own servers.",
}
LIKE = f"What do you like best about {PRODUCT}?"
DISLIKE = f"What do you dislike about {PRODUCT}?"
SOLVING = f"What problems is {PRODUCT} solving and how is that benefiting you?"
ATTRIBUTION = "Review collected by and hosted on G2.com."


def esc(text):
    return html.escape(text, quote=True)


def load():
    with open(RECORDING, encoding="utf-8") as f:
        reviews = json.load(f)
    for i, r in enumerate(reviews):
        r["index"] = i
        r["id"] = FIRST_ID + i
        r["votes"] = HELPFUL.get(i, 0)
    return reviews


def header(reviews):
    rates = [r["review"]["reviewRate"] for r in reviews]
    average = round(sum(rates) / len(rates), 1)
    ld = {
        "@context": "https://schema.org",
        "@type": "SoftwareApplication",
        "name": PRODUCT,
        "applicationCategory": "BusinessApplication",
        "aggregateRating": {
            "@type": "AggregateRating",
            "ratingValue": average,
            "reviewCount": len(reviews),
            "bestRating": 5,
        },
    }
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{PRODUCT} Reviews 2025: Details, Pricing, &amp; Features | G2</title>
<meta property="og:title" content="{PRODUCT} Reviews 2025: Details, Pricing, &amp; Features | G2">
<script type="application/ld+json">{json.dumps(ld)}</script>
</head>
<body>
<div id="product-header">
<h1 class="elv-text-2xl elv-font-bold">{PRODUCT}</h1>
<div class="elv-star-wrapper"><div class="elv-star-wrapper__desc"><span class="elv-star-wrapper__desc__rating">{average} / 5</span> <span class="elv-star-wrapper__desc__count">({len(reviews)})</span></div></div>
</div>
"""


def card(r):
    a, v = r["author"], r["review"]
    rid = r["id"]
    name = esc(a["authorName"])
    name_block = (
        f'<a href="{esc(a["authorProfile"])}"><div class="elv-font-bold">{name}</div></a>'
        if a["authorProfile"]
        else f'<div class="elv-font-bold">{name}</div>'
    )
    lines = []
    # The scraper's position equals the company size on anonymous cards: the
    # card showed one line then, the company size.
    if a["authorPosition"] and a["authorPosition"] != a["authorCompanySize"]:
        lines.append(a["authorPosition"])
    if a["authorCompanySize"]:
        lines.append(a["authorCompanySize"])
    info = "\n".join(f'<div class="elv-text-xs">{esc(x)}</div>' for x in lines)
    badges = "\n".join(
        f'<div class="elv-status-badge"><span class="elv-status-badge__label">{esc(t)}</span></div>'
        for t in v["reviewTags"]
    )
    rate = v["reviewRate"]
    answers = [(LIKE, v["reviewLikes"] + " " + ATTRIBUTION), (DISLIKE, v["reviewDislikes"])]
    if r["index"] in PROBLEMS:
        answers.append((SOLVING, PROBLEMS[r["index"]]))
    qa = "\n".join(
        f'<div class="elv-mb-4"><div class="elv-font-bold elv-text-sm">{esc(q)}</div><p class="elv-text-sm">{esc(t)}</p></div>'
        for q, t in answers
    )
    votes = r["votes"]
    helpful = f'<span class="elv-helpful-count">({votes})</span>' if votes else ""
    return f"""<article id="{SLUG}-review-{rid}" ue="track-in-viewport" class="elv-border elv-rounded-lg">
<div class="elv-flex elv-gap-2">
{name_block}
{info}
</div>
<div class="elv-star-wrapper"><div class="elv-stars elv-stars-{int(rate * 2)}" data-controller="five-star-rater"></div><div class="elv-star-wrapper__desc"><span class="elv-star-wrapper__desc__rating">{rate} / 5</span></div></div>
<meta content="{v["reviewData"]}">
{badges}
<div class="elv-text-lg elv-font-bold">&quot;{esc(v["reviewTitle"])}&quot;</div>
{qa}
<div class="elv-flex elv-gap-2">
<button class="elv-helpful-button" type="button">Helpful? {helpful}</button>
<button data-clipboard-text="https://www.g2.com/products/{SLUG}/reviews/{SLUG}-review-{rid}" type="button">Share</button>
</div>
</article>
"""


def page(reviews, all_reviews, number, total_pages):
    cards = "".join(card(r) for r in reviews)
    nav = (
        f'<a class="pagination__named-link" rel="next" href="/products/{SLUG}/reviews?page={number + 1}">Next ›</a>'
        if number < total_pages
        else ""
    )
    body = cards if reviews else '<div class="elv-text-center">No reviews match your filters.</div>\n'
    return (
        header(all_reviews)
        + f'<section id="reviews">\n{body}</section>\n<nav class="pagination">{nav}</nav>\n</body>\n</html>\n'
    )


def write(name, reviews, all_reviews):
    chunks = [reviews[i : i + PAGE_SIZE] for i in range(0, len(reviews), PAGE_SIZE)] or [[]]
    for n, chunk in enumerate(chunks, 1):
        with open(f"g2-{name}-p{n}.html", "w", encoding="utf-8") as f:
            f.write(page(chunk, all_reviews, n, len(chunks)))


def main():
    reviews = load()
    by_date = sorted(reviews, key=lambda r: r["review"]["reviewData"], reverse=True)
    write("most-recent", by_date, reviews)
    by_rating = sorted(
        by_date, key=lambda r: r["review"]["reviewRate"], reverse=True
    )
    write("highest-rated", by_rating, reviews)
    by_votes = sorted(by_date, key=lambda r: r["votes"], reverse=True)
    write("most-helpful", by_votes[:PAGE_SIZE], reviews)
    for stars in range(1, 6):
        bucket = [r for r in by_date if int(r["review"]["reviewRate"]) == stars]
        write(f"stars-{stars}", bucket, reviews)


if __name__ == "__main__":
    main()
