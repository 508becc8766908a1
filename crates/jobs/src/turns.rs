//! Which queued jobs run next: owners (API keys) take turns, so a key with
//! thousands of jobs queued holds up another key's job by at most one turn.

use std::collections::{HashMap, HashSet};

/// Of `unfinished` (job id and owner, oldest first), the at most `max` ids to
/// run next, leaving out those in `running`. The owner with the fewest jobs
/// running (counting those chosen) goes next; among equals, the one whose
/// waiting job is oldest.
pub fn take_turns(
    unfinished: &[(String, String)],
    running: &HashSet<String>,
    max: usize,
) -> Vec<String> {
    let mut load: HashMap<&str, usize> = HashMap::new();
    // Each owner's waiting jobs, oldest first, and the owners in the order of
    // their oldest waiting job.
    let mut waiting: HashMap<&str, std::collections::VecDeque<(usize, &str)>> = HashMap::new();
    for (at, (id, owner)) in unfinished.iter().enumerate() {
        match running.contains(id) {
            true => *load.entry(owner).or_default() += 1,
            false => waiting
                .entry(owner)
                .or_default()
                .push_back((at, id.as_str())),
        }
    }
    let mut chosen = Vec::new();
    while chosen.len() < max {
        let next = waiting
            .iter()
            .filter_map(|(owner, queue)| queue.front().map(|(at, _)| (*owner, *at)))
            .min_by_key(|(owner, at)| (load.get(owner).copied().unwrap_or(0), *at));
        let Some((owner, _)) = next else { break };
        let (_, id) = waiting
            .get_mut(owner)
            .and_then(|q| q.pop_front())
            .expect("the owner has a waiting job");
        *load.entry(owner).or_default() += 1;
        chosen.push(id.to_owned());
    }
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jobs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(id, owner)| (id.to_string(), owner.to_string()))
            .collect()
    }

    #[test]
    fn owners_take_turns_whatever_their_backlog() {
        let mut list: Vec<(&str, &str)> = Vec::new();
        let many: Vec<String> = (0..500).map(|i| format!("a{i}")).collect();
        for id in &many {
            list.push((id, "A"));
        }
        list.push(("b0", "B"));
        let unfinished = jobs(&list);
        // A runs four already: B's one job goes first.
        let running: HashSet<String> = many[..4].iter().cloned().collect();
        assert_eq!(take_turns(&unfinished, &running, 1), vec!["b0"]);
        // Nothing running: the oldest first, then B's, then A's again.
        assert_eq!(
            take_turns(&unfinished, &HashSet::new(), 3),
            vec!["a0", "b0", "a1"]
        );
    }

    #[test]
    fn running_jobs_are_never_taken_and_max_bounds_the_answer() {
        let unfinished = jobs(&[("x", "A"), ("y", "A")]);
        let running: HashSet<String> = ["x".to_owned()].into();
        assert_eq!(take_turns(&unfinished, &running, 5), vec!["y"]);
        assert!(take_turns(&unfinished, &running, 0).is_empty());
    }
}
