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

/// How long a receive waits before it reports a timeout instead of hanging.
pub const RECEIVE_TIMEOUT: Duration = Duration::from_secs(120);

impl Fabric {
    /// Posts a message from `from` to `to`.
    pub fn post(&self, from: usize, to: usize, tag: Tag, message: Message) {
        let mut boxes = self.boxes.lock().unwrap_or_else(|p| p.into_inner());
        boxes.entry((from, to, tag)).or_default().push_back(message);
        self.arrived.notify_all();
    }

    /// Takes the oldest message from `from` to `to` with `tag`, waiting for it.
    pub fn take(&self, from: usize, to: usize, tag: Tag) -> Result<Message, ShmError> {
        let deadline = Instant::now() + RECEIVE_TIMEOUT;
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
                    format!("rank {to} waited {RECEIVE_TIMEOUT:?} for {tag:?} from rank {from}"),
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

    /// Takes the message `incoming` waits for at `rank` and copies it in.
    pub fn take_into(&self, rank: usize, incoming: &mut Incoming<'_>) -> Result<Message, ShmError> {
        let m = self.take(incoming.peer, rank, Tag::Route(incoming.route))?;
        if m.bytes.len() != incoming.bytes.len() {
            return Err(ShmError::new(
                CommErrorKind::SizeMismatch,
                format!(
                    "{:?} from rank {} to rank {rank}: received {} bytes, expected {}",
                    incoming.route,
                    incoming.peer,
                    m.bytes.len(),
                    incoming.bytes.len()
                ),
            ));
        }
        incoming.bytes.copy_from_slice(&m.bytes);
        Ok(m)
    }
}

/// Checks that an all-gather contribution from `peer` holds `values` f64s.
pub fn check_gathered(m: &Message, values: usize, peer: usize) -> Result<(), ShmError> {
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
