#!/usr/bin/env python3
"""Writes the review-widget fixtures of the web-page replay cases: one shop
page per vendor that embeds the vendor's widget, and the vendor endpoint's
answers, in the formats public client code documents for each (see
../README.md). Every shop, person and text is made up. Run from this
directory; then rebuild ../../web-page.har."""
import json

NAMES = ["Ava", "Ben", "Cleo", "Dara", "Eli", "Fay", "Gus", "Hana", "Ivo", "Jun",
         "Kit", "Lou", "Mo", "Nia", "Oli", "Pia", "Quin", "Ria", "Sol", "Tam",
         "Uma", "Vic", "Wren"]
SAYINGS = ["Arrived quickly and works as described", "Lovely finish on the handle",
           "Smaller than I expected but well made", "Second one I have bought",
           "Good value for the price"]

def write(name, text):
    with open(name, "w") as f:
        f.write(text)

def page(title, head, body):
    return f"""<!doctype html>
<html><head><meta charset="utf-8"><title>{title}</title>
{head}
</head><body><h1>{title}</h1>
{body}
</body></html>
"""

# Yotpo: the v2 script names the app key; the widget names the product.
write("yotpo.html", page("Kestrel Mug", """<script src="//staticw2.yotpo.com/Kx7TqP2mWvR9aZ4bNc1D/widget.js" async></script>
<script type="application/ld+json">{"@context": "https://schema.org", "@type": "Product", "name": "Kestrel Mug",
 "review": [{"@type": "Review", "author": {"name": "Ava S."}, "datePublished": "2026-01-20",
   "reviewBody": "Keeps coffee hot for an hour.", "reviewRating": {"ratingValue": 5}}]}</script>""",
 """<div class="yotpo yotpo-main-widget" data-product-id="7406592065583" data-name="Kestrel Mug"></div>"""))
write("yotpo-reviews.json", json.dumps({
  "status": {"code": 200, "message": "OK"},
  "response": {
    "pagination": {"page": 1, "per_page": 50, "total": 3},
    "bottomline": {"total_review": 3, "average_score": 4.3},
    "products": [{"id": 1, "domain_key": "7406592065583", "name": "Kestrel Mug"}],
    "reviews": [
      {"id": 501, "score": 5, "title": "Great mug", "content": "Keeps coffee hot for an hour.",
       "created_at": "2026-01-20T09:00:00.000Z", "verified_buyer": True, "votes_up": 2,
       "user": {"display_name": "Ava S."}, "deleted": False},
      {"id": 502, "score": 4, "title": "Nice glaze", "content": "The glaze is lovely &amp; even.",
       "created_at": "2026-01-11T14:30:00.000Z", "verified_buyer": False, "votes_up": 0,
       "user": {"display_name": "Ben K."}, "deleted": False,
       "comment": {"id": 9, "content": "Thank you, Ben!", "created_at": "2026-01-12T08:00:00.000Z"},
       "images_data": [{"id": 1, "thumb_url": "https://cdn-yotpo-images-production.yotpo.com/t.jpg",
                        "original_url": "https://cdn-yotpo-images-production.yotpo.com/o.jpg"}]},
      {"id": 503, "score": 1, "title": "removed", "content": "This review was deleted.",
       "created_at": "2026-01-05T10:00:00.000Z", "user": {"display_name": "Gone"}, "deleted": True},
    ]}}, indent=1))

# Judge.me: the shop's domain in jdgm's set-up, the product on the widget;
# 23 reviews in two pages of 20.
write("judgeme.html", page("Osprey Scarf", """<script>jdgm = window.jdgm || {}; jdgm.SHOP_DOMAIN = 'osprey-knits.myshopify.com'; jdgm.PLATFORM = 'shopify';</script>
<script src="https://cdn.judge.me/widget_preloader.js" async></script>""",
 """<div id="judgeme_product_reviews" class="jdgm-widget jdgm-review-widget" data-id="8123456789012"></div>"""))
def jdgm(i):
    reply = ("<div class='jdgm-rev__reply'><div class='jdgm-rev__reply-content'><p>Thanks for the kind words!</p></div></div>"
             if i == 0 else "<div class='jdgm-rev__reply'></div>")
    pic = ("<a class='jdgm-rev__pic-link' href='https://judgeme.imgix.net/osprey/scarf.jpg'><img src='x'></a>" if i == 1 else "")
    return (f"<div class='jdgm-rev jdgm-divider-top' data-review-id='rv-{1000 + i}' data-verified-buyer='{'true' if i % 2 == 0 else 'false'}' data-thumb-up-count='{i % 3}'>"
            f"<span class='jdgm-rev__rating' data-score='{5 - i % 3}'></span>"
            f"<span class='jdgm-rev__timestamp' data-content='2025-12-{28 - i:02d} 10:00:00 UTC'></span>"
            f"<span class='jdgm-rev__author'>{NAMES[i]}</span>"
            f"<b class='jdgm-rev__title'>Scarf {i + 1}</b>"
            f"<div class='jdgm-rev__body'><p>{SAYINGS[i % 5]} (review {i + 1}).</p></div>{pic}{reply}</div>")
for page_no, rng in [(1, range(0, 20)), (2, range(20, 23))]:
    write(f"judgeme-{page_no}.json", json.dumps({
        "html": "<div class='jdgm-rev-widg__reviews'>" + "".join(jdgm(i) for i in rng) + "</div>",
        "total_count": 23, "page": page_no}, indent=1))

# Trustpilot: a TrustBox; the data answers the newest reviews only.
write("trustpilot.html", page("Northwind Home", """<script src="//widget.trustpilot.com/bootstrap/v5/tp.widget.bootstrap.min.js" async></script>""",
 """<div class="trustpilot-widget" data-locale="en-GB" data-template-id="53aa8912dec7e10d38f59f36" data-businessunit-id="5f1e2d3c4b5a69788796a5b4" data-style-height="140px" data-theme="light">
  <a href="https://uk.trustpilot.com/review/northwind.example" target="_blank">Trustpilot</a></div>"""))
write("trustpilot-data.json", json.dumps({
  "businessUnit": {"trustScore": 4.4, "stars": 4.5, "numberOfReviews": {"total": 120}, "displayName": "Northwind Home"},
  "starsString": "Excellent",
  "links": {"profileUrl": "https://uk.trustpilot.com/review/northwind.example"},
  "reviews": [
    {"id": "65a1b2c3d4e5f6a7b8c9d0e1", "stars": 5, "title": "Quick delivery", "text": "Ordered on Monday, here by Wednesday.",
     "createdAt": "2026-02-02T11:15:00Z", "language": "en", "consumer": {"displayName": "Kit M."},
     "verification": {"isVerified": True}, "reviewUrl": "https://uk.trustpilot.com/reviews/65a1b2c3d4e5f6a7b8c9d0e1",
     "companyReply": {"text": "Glad it arrived quickly!", "createdAt": "2026-02-03T09:00:00Z"}},
    {"id": "65a1b2c3d4e5f6a7b8c9d0e2", "stars": 3, "title": "Fine", "text": "The box was dented but the lamp was fine.",
     "createdAt": "2026-01-28T16:40:00Z", "language": "en", "consumer": {"displayName": "Lou P."},
     "verification": {"isVerified": False}},
  ]}, indent=1))

# REVIEWS.io: a rating snippet names the SKU, ratingSnippet the store; pages from 0.
write("reviewsio.html", page("Heron Lamp", """<script src="https://widget.reviews.io/rating-snippet/dist.js"></script>
<script>ratingSnippet("ruk_rating_snippet", { store: "heron-lighting", color: "#1C1C1C" });</script>""",
 """<div class="ruk_rating_snippet" data-sku="HL-200;44001;7001;heron-lamp"></div>"""))
def rio(i, sku="HL-200"):
    return {"product_review_id": 9000 + i, "rating": 5 - i, "title": f"Lamp {i + 1}",
            "review": f"{SAYINGS[i]}.", "date_created": f"2025-11-{20 - i:02d} 12:00:00",
            "reviewer": {"first_name": NAMES[10 + i], "last_name": "R.", "verified_buyer": "yes"},
            "sku": sku, "images": []}
write("reviewsio-0.json", json.dumps({"count": 3, "rating": 4.0, "total_pages": 2, "current_page": 0,
                                      "reviews": [rio(0), rio(1)]}, indent=1))
write("reviewsio-1.json", json.dumps({"count": 3, "rating": 4.0, "total_pages": 2, "current_page": 1,
                                      "reviews": [rio(2)]}, indent=1))

# Stamped: the public key and store in StampedFn.init, the product on the widget.
write("stamped.html", page("Wren Candle", """<script src="https://cdn1.stamped.io/files/widget.min.js"></script>
<script>StampedFn.init({ apiKey: 'pubkey-7Hq2LmN9xR4tV6yZ8bC1', sId: '114374' });</script>""",
 """<div id="stamped-main-widget" class="stamped-main-widget" data-widget-style="standard" data-product-id="6601122334455" data-name="Wren Candle"></div>"""))
write("stamped-1.json", json.dumps({"page": 1, "total": 2, "rating": 4.5, "data": [
    {"id": 31001, "author": "Nia O.", "reviewRating": 5, "reviewTitle": "Smells like a forest",
     "reviewMessage": "Burns evenly for hours.", "dateCreated": "2025-10-04T08:00:00Z", "reviewDate": "10/04/2025",
     "reviewVerifiedType": 2, "reviewReply": "Thank you, Nia!", "reviewUserPhotos": "wren-1.jpg,wren-2.jpg",
     "reviewVotesUp": 3, "isRecommend": True},
    {"id": 31002, "author": "Oli T.", "reviewRating": 4, "reviewTitle": "Nice",
     "reviewMessage": "A little faint in a big room.", "dateCreated": "2025-09-21T18:30:00Z",
     "reviewVerifiedType": 0, "reviewReply": "", "reviewUserPhotos": "", "reviewVotesUp": 0},
]}, indent=1))

# Okendo: the subscriber in a meta tag, the product on the widget; nextUrl pages.
write("okendo.html", page("Plover Boots", """<meta name="oke:subscriber_id" content="3f9c2a1e-5b7d-4c8e-9a0b-1c2d3e4f5a6b">
<script src="https://cdn-static.okendo.io/reviews-widget-plus/js/okendo-reviews.js" defer></script>""",
 """<div data-oke-widget data-oke-reviews-product-id="shopify-7788990011223"></div>"""))
def oke(i):
    return {"reviewId": f"a1b2c3d4-0000-4000-8000-00000000000{i}", "rating": 5 - i % 2, "title": f"Boots {i + 1}",
            "body": f"{SAYINGS[i]}.", "dateCreated": f"2025-08-{15 - i:02d}T07:00:00.000Z",
            "reviewer": {"displayName": NAMES[15 + i], "isVerified": i == 0}, "isRecommended": True,
            "helpfulCount": i, "languageCode": "en",
            "media": ([{"type": "image", "fullSizeUrl": "https://d3hw6dc1ow8pp2.cloudfront.net/boots.jpg"}] if i == 0 else [])}
write("okendo-1.json", json.dumps({"reviews": [oke(0), oke(1)],
    "nextUrl": "/stores/3f9c2a1e-5b7d-4c8e-9a0b-1c2d3e4f5a6b/products/shopify-7788990011223/reviews?limit=25&lastEvaluated=%7B%22r%22%3A2%7D"}, indent=1))
write("okendo-2.json", json.dumps({"reviews": [oke(2)]}, indent=1))
