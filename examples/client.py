#!/usr/bin/env python3
"""Fetches every review of a page from a Gleaner server, following the
continuation, and prints the reviews as JSON Lines on stdout (progress on
stderr). Python standard library only.

    python3 examples/client.py --url http://127.0.0.1:8080 --api-key KEY \\
        --source customer-feedback-hub \\
        --query https://www.trustpilot.com/review/www.bhphotovideo.com \\
        --page-size 20 > reviews.jsonl

`--source` is a source label (its route is looked up in the server's
/openapi.json, or taken to be /<label>/reviews when the server has none) or
a route path such as /testimonial-wall/wol.

Each request asks for `--page-size` reviews; the answer's continuation
(`next_page`, or `pagination_data` for the sources that use it) goes back
with the next request, until `extra_information.complete` is true or no
continuation is left. The server promises no gap and no duplicate along a
continuation; this client checks that (a review id seen twice, a page larger
than asked for, a page cut short although the limit was reached, the same
continuation twice) and stops with an error when it is broken, rather than
repairing anything.

Exit status: 0 when the fetch ended (complete, or the source has no more to
give), 1 on an error (the server's status and message are printed), 2 on
wrong arguments.
"""

import argparse
import http.client
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

# The largest reviews_to_fetch the server accepts.
MAX_PAGE_SIZE = 10_000
# Empty pages in a row that still offer a continuation before giving up.
MAX_EMPTY_PAGES = 5
# Times a 503 (overloaded, or the plugin still loading) is retried.
RETRIES_503 = 5


class ClientError(Exception):
    """An error the client reports and exits on."""


def parse_args(argv):
    parser = argparse.ArgumentParser(
        description="Fetch every review of a page from a Gleaner server, as JSON Lines on stdout.",
    )
    parser.add_argument(
        "--url",
        default=os.environ.get("GLEANER_URL", "http://127.0.0.1:8080"),
        help="the server's base URL (default: $GLEANER_URL or http://127.0.0.1:8080)",
    )
    parser.add_argument(
        "--api-key",
        default=os.environ.get("GLEANER_API_KEY"),
        help="an API key, sent as x-api-key (default: $GLEANER_API_KEY; none for a loopback server without keys)",
    )
    parser.add_argument(
        "--source",
        required=True,
        help="a source label such as customer-feedback-hub, or a route path such as /testimonial-wall/wol",
    )
    parser.add_argument("--query", required=True, help="the page to fetch reviews of (the request's query)")
    parser.add_argument(
        "--page-size",
        type=int,
        default=100,
        help=f"reviews asked for per request, 1 to {MAX_PAGE_SIZE} (default 100)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=90.0,
        help="seconds to wait for one answer (default 90; a fetch answers within the server's budget, 30 s by default)",
    )
    args = parser.parse_args(argv)
    if not 1 <= args.page_size <= MAX_PAGE_SIZE:
        parser.error(f"--page-size must be between 1 and {MAX_PAGE_SIZE}, not {args.page_size}")
    if not args.query.strip():
        parser.error("--query must not be empty")
    if urllib.parse.urlsplit(args.url).scheme not in ("http", "https"):
        parser.error(f"--url must start with http:// or https://, not {args.url!r}")
    return args


def log(message):
    print(message, file=sys.stderr, flush=True)


class Server:
    """The HTTP side: JSON requests, the server's error messages, 503 retries."""

    def __init__(self, base_url, api_key, timeout):
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout = timeout

    def request(self, method, path, body=None):
        """Sends a request; returns (status, parsed JSON body). Error statuses are returned, not raised."""
        url = self.base_url + path
        headers = {"accept": "application/json"}
        if self.api_key:
            headers["x-api-key"] = self.api_key
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["content-type"] = "application/json"
        for attempt in range(RETRIES_503 + 1):
            request = urllib.request.Request(url, data=data, headers=headers, method=method)
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    return response.status, self._json(response.read(), response.status, url)
            except urllib.error.HTTPError as e:
                status, raw, retry_after = e.code, e.read(), e.headers.get("retry-after")
            except urllib.error.URLError as e:
                raise ClientError(f"cannot reach {url}: {e.reason}; check --url and that the server is running") from None
            except TimeoutError:
                raise ClientError(f"{method} {url} did not answer within {self.timeout:g} s (--timeout)") from None
            except (OSError, http.client.HTTPException) as e:
                raise ClientError(f"{method} {url} failed before its answer was read: {e!r}") from None
            if status == 503 and attempt < RETRIES_503:
                wait = float(retry_after) if retry_after and retry_after.isdigit() else 1.0
                log(f"{url} answered 503 ({error_message(raw)}); retrying in {wait:g} s")
                time.sleep(wait)
                continue
            try:
                return status, json.loads(raw)
            except ValueError:
                return status, {"error": raw.decode(errors="replace").strip()}
        raise AssertionError("unreachable: the last attempt returns")

    @staticmethod
    def _json(raw, status, url):
        try:
            return json.loads(raw)
        except ValueError:
            raise ClientError(f"{url} answered {status} with a body that is not JSON: {raw[:200]!r}") from None


def error_message(raw_or_body):
    """The server's error text from any of its error shapes."""
    body = raw_or_body
    if isinstance(raw_or_body, bytes):
        try:
            body = json.loads(raw_or_body)
        except ValueError:
            return raw_or_body.decode(errors="replace").strip() or "no message"
    if isinstance(body, dict):
        for key in ("error", "message"):
            if isinstance(body.get(key), str) and body[key]:
                return body[key]
    return json.dumps(body)


def resolve_route(server, source):
    """The route of a source: a path as given, else found in /openapi.json, else /<label>/reviews."""
    if source.startswith("/"):
        return source
    status, document = server.request("GET", "/openapi.json")
    if status == 200 and isinstance(document, dict) and isinstance(document.get("paths"), dict):
        routes = [
            path
            for path, item in document["paths"].items()
            if path.split("/")[1:2] == [source] and isinstance(item, dict) and "post" in item
        ]
        if len(routes) == 1:
            return routes[0]
        if not routes:
            raise ClientError(f"the server serves no route of source {source!r}; its routes: {', '.join(document['paths'])}")
        if f"/{source}/reviews" not in routes:
            raise ClientError(f"source {source!r} has several routes ({', '.join(routes)}); give one with --source")
    return f"/{source}/reviews"


def continuation_of(answer):
    """(request field, value to send back), or None when no continuation is offered."""
    if "pagination_data" in answer:
        data = answer["pagination_data"]
        if isinstance(data, dict) and data.get("token"):
            return "pagination_data", data
        return None
    token = answer.get("next_page")
    if isinstance(token, str) and token:
        return "pagination_token", token
    return None


def fetch_all(server, route, query, page_size, out):
    """Pages through one fetch, writing each review as a JSON line to `out`; returns the review count."""
    seen = {}
    sent = set()
    count = 0
    request = {"query": query, "reviews_to_fetch": page_size}
    page = empty_pages = 0
    while True:
        page += 1
        status, answer = server.request("POST", route, request)
        if status != 200:
            raise ClientError(f"POST {route} (page {page}) answered {status}: {error_message(answer)}")
        if not isinstance(answer, dict):
            raise ClientError(f"POST {route} (page {page}) answered with JSON that is not an object: {json.dumps(answer)[:300]}")
        reviews = answer.get("all_reviews")
        info = answer.get("extra_information")
        info = info if isinstance(info, dict) else {}
        if not isinstance(reviews, list):
            raise ClientError(f"POST {route} (page {page}) answered without an all_reviews list: {json.dumps(answer)[:300]}")
        if len(reviews) > page_size:
            raise ClientError(f"page {page} holds {len(reviews)} reviews, more than the {page_size} asked for")
        for review in reviews:
            review_id = review.get("review_id") if isinstance(review, dict) else None
            if review_id is not None and review_id in seen:
                raise ClientError(
                    f"review {review_id!r} arrived twice (pages {seen[review_id]} and {page}): "
                    "the server promised no duplicate along a continuation"
                )
            if review_id is not None:
                seen[review_id] = page
            count += 1
            out.write(json.dumps(review, ensure_ascii=False) + "\n")
        out.flush()

        complete = info.get("complete") is True
        stop_reason = info.get("stop_reason")
        follow = continuation_of(answer)
        log(
            f"page {page}: {len(reviews)} reviews, {count} in all; "
            f"stop_reason {stop_reason}, {'complete' if complete else 'continuing' if follow else 'no continuation'}"
        )
        if stop_reason == "limit_reached" and len(reviews) < page_size:
            raise ClientError(
                f"page {page} stopped at the limit with {len(reviews)} of the {page_size} reviews asked for: "
                "reviews would be missing"
            )
        if complete or follow is None:
            if not complete:
                log(f"the fetch ends incomplete: {answer.get('message', stop_reason)}")
            total = info.get("total_reviews")
            if complete and stop_reason == "exhausted" and isinstance(total, int) and total != count:
                log(f"note: the source counts {total} reviews; {count} were served (sites count hidden reviews too)")
            return count

        field, value = follow
        key = json.dumps(value, sort_keys=True)
        if key in sent:
            raise ClientError(f"page {page} offered a continuation already followed: paging would never end")
        sent.add(key)
        empty_pages = empty_pages + 1 if not reviews else 0
        if empty_pages > MAX_EMPTY_PAGES:
            raise ClientError(f"{empty_pages} pages in a row held no review yet offered a continuation")
        request = {"query": query, "reviews_to_fetch": page_size, field: value}


def main(argv=None):
    args = parse_args(argv)
    server = Server(args.url, args.api_key, args.timeout)
    try:
        route = resolve_route(server, args.source)
        log(f"fetching {args.query} from {server.base_url}{route}, {args.page_size} reviews a request")
        count = fetch_all(server, route, args.query, args.page_size, sys.stdout)
    except ClientError as e:
        log(f"error: {e}")
        return 1
    except BrokenPipeError:
        # stdout was closed early (piped into head, say): stop quietly.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    log(f"done: {count} reviews")
    return 0


if __name__ == "__main__":
    sys.exit(main())
