//! The order a fetch goes by: what each page declares, re-checked against the
//! page's own dates.
//!
//! A `sync_date` fetch stops early only on a strictly dated order, and a
//! `sync_cursor` or schedule only stops at known reviews of a newest-first
//! one. A source declares the order per page; the host trusts no guest, so a
//! page whose reviews' days go against its declared order (a pinned review, a
//! listing that groups reviews by language) makes the rest of the fetch
//! unordered: it then filters by date without stopping early.

use crate::bindings::types::Order;

use super::dates::day;

/// The order of a fetch so far.
#[derive(Debug, Default)]
pub(super) struct OrderCheck {
    /// The last readable day seen, in the source's order.
    last: Option<chrono::NaiveDate>,
    /// A declared order that the dates contradicted, once one did.
    contradicted: Option<Order>,
    /// Whether any page was read as unordered.
    unordered: bool,
    /// The order the last page was read by.
    last_order: Option<Order>,
}

impl OrderCheck {
    /// The order to go by for a page that declares `declared`, with its
    /// reviews' dates in the page's order.
    pub(super) fn page<'a>(
        &mut self,
        declared: Order,
        dates: impl Iterator<Item = Option<&'a str>>,
    ) -> Order {
        let days = dates.filter_map(|d| d.and_then(day));
        let mut holds = self.contradicted.is_none();
        for today in days {
            if let Some(before) = self.last {
                let against = match declared {
                    Order::NewestFirst => today > before,
                    Order::OldestFirst => today < before,
                    Order::Unordered => false,
                };
                if against && holds {
                    holds = false;
                    self.contradicted = Some(declared);
                }
            }
            self.last = Some(today);
        }
        let order = if holds { declared } else { Order::Unordered };
        self.unordered |= order == Order::Unordered;
        self.last_order = Some(order);
        order
    }

    /// The declared order the source's dates went against, if any did.
    pub(super) fn contradicted(&self) -> Option<Order> {
        self.contradicted
    }

    /// The order the last page was read by; none before any page.
    pub(super) fn last_order(&self) -> Option<Order> {
        self.last_order
    }

    /// Whether a page was read as unordered, so `sync_date` could only filter.
    pub(super) fn was_unordered(&self) -> bool {
        self.unordered
    }
}

/// The order's code in `extra_information` and the logs.
pub(super) fn code(order: Order) -> &'static str {
    match order {
        Order::NewestFirst => "newest_first",
        Order::OldestFirst => "oldest_first",
        Order::Unordered => "unordered",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dates<'a>(list: &'a [&'static str]) -> impl Iterator<Item = Option<&'static str>> + 'a {
        list.iter().map(|d| Some(*d))
    }

    #[test]
    fn a_declared_order_holds_while_the_days_agree() {
        let mut check = OrderCheck::default();
        let page = ["2024-05-12T10:00:00Z", "2024-05-12T11:00:00Z", "2024-05-10"];
        assert_eq!(
            check.page(Order::NewestFirst, dates(&page)),
            Order::NewestFirst,
            "times within a day may go either way"
        );
        assert_eq!(
            check.page(
                Order::NewestFirst,
                [Some("2024-05"), None, Some("2024-05-09")].into_iter()
            ),
            Order::NewestFirst,
            "unreadable dates are skipped"
        );
        assert!(!check.was_unordered());
        assert_eq!(check.contradicted(), None);
    }

    #[test]
    fn days_against_the_declared_order_make_the_rest_unordered() {
        let mut check = OrderCheck::default();
        // The site's language first, newest first, then the others.
        let page = ["2024-05-12", "2024-05-01", "2024-05-12", "2024-04-30"];
        assert_eq!(
            check.page(Order::NewestFirst, dates(&page)),
            Order::Unordered
        );
        assert_eq!(check.contradicted(), Some(Order::NewestFirst));
        assert_eq!(
            check.page(Order::NewestFirst, dates(&["2024-04-01"])),
            Order::Unordered,
            "the rest of the fetch stays unordered"
        );
        let mut check = OrderCheck::default();
        assert_eq!(
            check.page(Order::OldestFirst, dates(&["2024-05-12"])),
            Order::OldestFirst
        );
        assert_eq!(
            check.page(Order::OldestFirst, dates(&["2024-05-11"])),
            Order::Unordered,
            "across pages too"
        );
        assert!(check.was_unordered());
    }
}
