//! In-process message passing between rank threads: one FIFO per (sender, receiver, tag).

use std::collections::{HashMap, VecDeque};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::error::ShmError;
use yee_core::{CommErrorKind, Incoming, Outgoing, Route};

/// What a message is for; messages with different tags never mix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tag {
    /// A point-to-point message of an exchange.
    Route(Route),
    /// A contribution to an all-gather.
    Gather,
}

/// A message: bytes and the sender's clock when it was sent.
#[derive(Clone, Debug)]
pub struct Message {
    /// Payload.
    pub bytes: Vec<u8>,
    /// Sender's clock (seconds) at the send.
    pub sent_at: f64,
}

type Key = (usize, usize, Tag);

/// Mailboxes shared by all ranks of one launch.
#[derive(Debug, Default)]
pub struct Fabric {
    boxes: Mutex<HashMap<Key, VecDeque<Message>>>,
    arrived: Condvar,
}

/// How long a receive waits by default before it reports a timeout instead of hanging.
pub const RECEIVE_TIMEOUT: Duration = Duration::from_secs(120);

impl Fabric {
    /// Posts a message from `from` to `to`.
    pub fn post(&self, from: usize, to: usize, tag: Tag, message: Message) {
        let mut boxes = self.boxes.lock().unwrap_or_else(|p| p.into_inner());
        boxes.entry((from, to, tag)).or_default().push_back(message);
        self.arrived.notify_all();
    }

    /// Takes the oldest message from `from` to `to` with `tag`, waiting for it at most
    /// `timeout` (then an error of kind [`CommErrorKind::Timeout`]).
    pub fn take(
        &self,
        from: usize,
        to: usize,
        tag: Tag,
        timeout: Duration,
    ) -> Result<Message, ShmError> {
        let deadline = Instant::now() + timeout;
        let mut boxes = self.boxes.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if let Some(m) = boxes
                .get_mut(&(from, to, tag))
                .and_then(VecDeque::pop_front)
            {
                return Ok(m);
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(ShmError::new(
                    CommErrorKind::Timeout,
                    format!("rank {to} waited {timeout:?} for {tag:?} from rank {from}"),
                ));
            }
            boxes = self
                .arrived
                .wait_timeout(boxes, deadline - now)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }
}

/// Little-endian bytes of `values` (an all-gather contribution).
pub fn encode_f64s(values: &[f64]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// Decodes little-endian `bytes` into `out`.
pub fn decode_f64s(bytes: &[u8], out: &mut [f64]) {
    for (v, b) in out.iter_mut().zip(bytes.chunks_exact(8)) {
        *v = f64::from_le_bytes(b.try_into().expect("chunks of 8 bytes"));
    }
}

impl Fabric {
    /// Posts every message of `outgoing` from `rank`, stamped `sent_at`.
    pub fn post_all(&self, rank: usize, outgoing: &[Outgoing<'_>], sent_at: f64) {
        for o in outgoing {
            let message = Message {
                bytes: o.bytes.to_vec(),
                sent_at,
            };
            self.post(rank, o.peer, Tag::Route(o.route), message);
        }
    }

    /// Takes every message `incoming` waits for at `rank` (each waiting at most `timeout`), in
    /// order, copies each in and then calls `arrived` with it (the communicator's timing). A message of the wrong length is still
    /// taken, and the receives after it completed, so that nothing of this exchange is left
    /// for the next one to mistake for its own; the first such [`CommErrorKind::SizeMismatch`]
    /// is returned at the end. A timeout ends the exchange at once: the peer may be gone.
    pub fn receive_all(
        &self,
        rank: usize,
        incoming: &mut [Incoming<'_>],
        timeout: Duration,
        mut arrived: impl FnMut(&mut Incoming<'_>, &Message),
    ) -> Result<(), ShmError> {
        let mut mismatch = None;
        for i in incoming.iter_mut() {
            let m = self.take(i.peer, rank, Tag::Route(i.route), timeout)?;
            if m.bytes.len() == i.bytes.len() {
                i.bytes.copy_from_slice(&m.bytes);
            } else if mismatch.is_none() {
                mismatch = Some(ShmError::new(
                    CommErrorKind::SizeMismatch,
                    format!(
                        "{:?} from rank {} to rank {rank}: received {} bytes, expected {}",
                        i.route,
                        i.peer,
                        m.bytes.len(),
                        i.bytes.len()
                    ),
                ));
            }
            arrived(i, &m);
        }
        mismatch.map_or(Ok(()), Err)
    }

    /// The all-gather of the in-process communicators: posts `mine` from `rank` (stamped
    /// `sent_at`) to each of `size` ranks, then takes every rank's contribution into `all` in
    /// rank order, calling `arrived(peer, message)` for each. A buffer `all` of the wrong
    /// length fails before anything is posted; a contribution of the wrong length is still
    /// taken, with the others, so that the next all-gather starts clean.
    pub fn all_gather(
        &self,
        rank: usize,
        size: usize,
        mine: &[f64],
        all: &mut [f64],
        sent_at: f64,
        timeout: Duration,
        mut arrived: impl FnMut(usize, &Message),
    ) -> Result<(), ShmError> {
        if all.len() != mine.len() * size {
            return Err(ShmError::new(
                CommErrorKind::SizeMismatch,
                format!(
                    "all_gather of {} values per rank into {} for {size} ranks",
                    mine.len(),
                    all.len()
                ),
            ));
        }
        let bytes = encode_f64s(mine);
        for peer in 0..size {
            let message = Message {
                bytes: bytes.clone(),
                sent_at,
            };
            self.post(rank, peer, Tag::Gather, message);
        }
        let mut mismatch = None;
        let n = mine.len();
        for peer in 0..size {
            let m = self.take(peer, rank, Tag::Gather, timeout)?;
            arrived(peer, &m);
            match check_gathered(&m, n, peer) {
                Ok(()) => decode_f64s(&m.bytes, &mut all[peer * n..(peer + 1) * n]),
                Err(e) => {
                    mismatch.get_or_insert(e);
                }
            }
        }
        mismatch.map_or(Ok(()), Err)
    }
}

/// Checks that an all-gather contribution from `peer` holds `values` f64s.
fn check_gathered(m: &Message, values: usize, peer: usize) -> Result<(), ShmError> {
    if m.bytes.len() == values * 8 {
        Ok(())
    } else {
        Err(ShmError::new(
            CommErrorKind::SizeMismatch,
            format!(
                "gather from rank {peer}: received {} bytes, expected {}",
                m.bytes.len(),
                values * 8
            ),
        ))
    }
}
