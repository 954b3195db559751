//! The parts of a redeployment ([`super::redeploy`]) by decreasing execution time, in the
//! order a stable sort of the previous order gives after each change, and the first of them
//! not known to be stuck: each in O(log parts) per changed part, where re-sorting a list and
//! walking it past the stuck parts took O(parts) per move (4 096 steps a move at 4 096 parts).

use alloc::collections::BTreeSet;
use alloc::vec::Vec;

/// A part's place: its time as an ordered key (larger times first) and its label among the
/// parts of equal time (smaller first).
type Place = (u64, i64);

/// The parts by decreasing time, ties in the order a stable sort of the order before gives,
/// with a flag per part for "known to have no move".
///
/// Why labels reproduce the stable sort: let every part's label order the parts of each time
/// as the list does. When parts change time, a stable sort puts each among the parts of its
/// new time by where it stood before. A part whose time fell stood before all of them (larger
/// times come first), so it goes first; one whose time rose goes last; among several going
/// first (last) into one time, their old order holds. So a part whose time fell takes a label
/// below every label given so far, one whose time rose a label above, handed out in their old
/// order, and the labels order every time's parts as the list again.
pub(crate) struct Ranking {
    place: Vec<Place>,
    all: BTreeSet<(Place, usize)>,
    /// The entries of the parts not known to be stuck.
    live: BTreeSet<(Place, usize)>,
    stuck: Vec<bool>,
    /// Parts whose time may have changed since the last [`Ranking::resort`] (repeats allowed).
    changed: Vec<usize>,
    /// The least and the largest label given so far.
    labels: (i64, i64),
}

/// `t` as a key that orders like `t.total_cmp`, reversed (larger times first).
fn descending(t: f64) -> u64 {
    let bits = t.to_bits();
    // total_cmp's order as unsigned keys: negative numbers' bits flipped, positive numbers'
    // sign bit set.
    let ascending = if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    };
    !ascending
}

impl Ranking {
    /// The parts `0..parts` by decreasing `time`, ties by number (a stable sort of `0..parts`),
    /// none stuck. Time O(parts log parts).
    pub(crate) fn new(parts: usize, time: impl Fn(usize) -> f64) -> Self {
        let place: Vec<Place> = (0..parts)
            .map(|p| (descending(time(p)), p as i64))
            .collect();
        let all: BTreeSet<(Place, usize)> = place.iter().copied().zip(0..parts).collect();
        Ranking {
            live: all.clone(),
            all,
            place,
            stuck: alloc::vec![false; parts],
            changed: Vec::new(),
            labels: (0, parts as i64 - 1),
        }
    }

    /// The slowest part (the first of the order), if there are parts.
    pub(crate) fn first(&self) -> Option<usize> {
        self.all.first().map(|&(_, p)| p)
    }

    /// The first part of the order not known to be stuck.
    pub(crate) fn first_live(&self) -> Option<usize> {
        self.live.first().map(|&(_, p)| p)
    }

    /// Marks part `p` as having no move. Time O(log parts).
    pub(crate) fn stick(&mut self, p: usize) {
        if !self.stuck[p] {
            self.stuck[p] = true;
            self.live.remove(&(self.place[p], p));
        }
    }

    /// Clears part `p`'s stuck mark. Time O(log parts).
    pub(crate) fn unstick(&mut self, p: usize) {
        if self.stuck[p] {
            self.stuck[p] = false;
            self.live.insert((self.place[p], p));
        }
    }

    /// Notes that part `p`'s time may have changed; [`Ranking::resort`] places it anew.
    pub(crate) fn changed(&mut self, p: usize) {
        self.changed.push(p);
    }

    /// Places every part noted by [`Ranking::changed`] by its `time` now, as a stable sort of
    /// the order would. Time O(c log parts) for c changed parts.
    pub(crate) fn resort(&mut self, time: impl Fn(usize) -> f64) {
        let mut changed = core::mem::take(&mut self.changed);
        // In their old order, each with its new key.
        changed.sort_unstable_by_key(|&p| self.place[p]);
        changed.dedup();
        let key = |p: usize| descending(time(p));
        // Times that fell go first among their new equals: labels handed out downward, so
        // from the last of them in the old order to the first.
        for &p in changed.iter().rev() {
            if key(p) > self.place[p].0 {
                self.labels.0 -= 1;
                self.replace(p, (key(p), self.labels.0));
            }
        }
        for &p in &changed {
            if key(p) < self.place[p].0 {
                self.labels.1 += 1;
                self.replace(p, (key(p), self.labels.1));
            }
        }
        changed.clear();
        self.changed = changed;
    }

    /// Gives part `p` the place `place` in both sets.
    fn replace(&mut self, p: usize, place: Place) {
        let old = (self.place[p], p);
        self.all.remove(&old);
        self.all.insert((place, p));
        if !self.stuck[p] {
            self.live.remove(&old);
            self.live.insert((place, p));
        }
        self.place[p] = place;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_order_is_what_a_stable_sort_gives() {
        // Times with many ties, negative and positive zeros among them; after each change the
        // order must be the stable sort's of the order before.
        let values = [3.0, -0.0, 0.0, 1.5, -2.0, 7.0];
        let mut time: Vec<f64> = (0..40).map(|p| values[p * 7 % 6]).collect();
        let by_time = |time: &[f64], order: &mut Vec<usize>| {
            order.sort_by(|&a, &b| time[b].total_cmp(&time[a]));
        };
        let mut expected: Vec<usize> = (0..40).collect();
        by_time(&time, &mut expected);
        let mut ranking = Ranking::new(40, |p| time[p]);
        for step in 0..400usize {
            for k in 0..1 + step % 4 {
                let p = (step * 13 + k * 29) % 40;
                time[p] = values[(step + 3 * k) % 6];
                ranking.changed(p);
                // A stuck mark must not change the order, only which part is first live.
                if (step + k) % 5 == 0 {
                    ranking.stick(p);
                } else {
                    ranking.unstick(p);
                }
            }
            // Noted twice, or noted without a change: no effect.
            ranking.changed(step % 40);
            ranking.resort(|p| time[p]);
            by_time(&time, &mut expected);
            let order: Vec<usize> = ranking.all.iter().map(|&(_, p)| p).collect();
            assert_eq!(order, expected, "step {step}");
            let live = expected.iter().copied().find(|&p| !ranking.stuck[p]);
            assert_eq!(ranking.first_live(), live, "step {step}");
            assert_eq!(ranking.first(), Some(expected[0]));
        }
    }

    #[test]
    fn descending_keys_order_like_total_cmp_reversed() {
        let values = [
            f64::NEG_INFINITY,
            -3.5,
            -0.0,
            0.0,
            1e-300,
            2.0,
            f64::INFINITY,
        ];
        for a in values {
            for b in values {
                assert_eq!(
                    descending(a).cmp(&descending(b)),
                    b.total_cmp(&a),
                    "{a} {b}"
                );
            }
        }
    }
}
