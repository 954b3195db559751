//! Bounded waits: every wait of this crate polls its request instead of blocking in `MPI_Wait`,
//! so that a rank that stops answering (a stopped or hung process, a lost node) ends the job
//! with one message naming it instead of leaving every other rank waiting for ever.
//!
//! A process that *exits* is mpirun's to notice: Open MPI ends the whole job when one process
//! dies or returns a non-zero status (`orte_abort_on_non_zero_status`, on by default) and names
//! the rank. A process that is alive but silent is not noticed by anyone, hence this watchdog:
//!
//! 1. A wait that has not finished after the timeout ([`TIMEOUT_VAR`], default
//!    [`DEFAULT_TIMEOUT`]) pings the ranks it waits for (one peer, or every rank in a
//!    collective) on `MPI_COMM_WORLD` with a tag of its own ([`PING_TAG`]).
//! 2. Every rank waiting anywhere in this crate answers pings while it polls ([`PONG_TAG`]). A
//!    peer that answers is alive and itself waiting for someone: the wait goes on for one more
//!    timeout, so that the ranks next to the silent one, which time out first, name it. A peer
//!    that does not answer within the ping window (`min(timeout, 10 s)`) has gone silent.
//! 3. The rank prints `error: rank R has gone silent: …` and calls `MPI_Abort`, which ends every
//!    process of the job (mpirun sends the stopped one `SIGCONT`, `SIGTERM`, then `SIGKILL`);
//!    the job exits with [`SILENT_EXIT_CODE`]. Several ranks may find the silent one at once:
//!    each waits [`STAGGER`] per rank number before printing, so that the first abort ends the
//!    others first and one message is printed.
//!
//! MPI offers no way back from a lost peer (its requests can neither complete nor be freed
//! safely), so ending the job is the only bounded outcome: the error is not a value.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use mpi::Tag;
use mpi::point_to_point::{Destination, Source, Status};
use mpi::request::{Request, Scope, StaticScope};
use mpi::topology::{Communicator, SimpleCommunicator};
use yee_core::CommErrorKind;

use crate::MpiError;

/// The environment variable that sets how long a rank waits for a message before it asks
/// whether the sender is still alive, in seconds; `0` waits for ever (no watchdog).
pub const TIMEOUT_VAR: &str = "YEE_MPI_TIMEOUT";

/// The wait when [`TIMEOUT_VAR`] is not set.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The longest a pinged rank is given to answer.
const MAX_PING_WINDOW: Duration = Duration::from_secs(10);

/// The tag of a ping on `MPI_COMM_WORLD` (no other message of yee uses the world communicator
/// with a tag: exchanges run on a Cartesian communicator, gathers on duplicates).
pub const PING_TAG: Tag = 0x7ee0;

/// The tag of the answer to a ping.
pub const PONG_TAG: Tag = 0x7ee1;

/// The exit status of a job ended because a rank went silent (`MPI_Abort`'s error code, which
/// mpirun returns).
pub const SILENT_EXIT_CODE: i32 = 75;

/// Polls before the first look at the clock: a wait that ends within them costs no more than
/// `MPI_Wait`'s own polling.
const SPIN: u32 = 1024;

/// Polls between two looks at the clock and at incoming pings.
const CHECK_EVERY: u32 = 64;

/// What a wait waits for, to know whom to ping.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Awaited {
    /// A message from this rank (of the world communicator).
    Rank(usize),
    /// A collective: any rank may be the one missing.
    Everyone,
}

/// How long waits may last before the peers are pinged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Watchdog {
    timeout: Option<Duration>,
}

impl Default for Watchdog {
    fn default() -> Self {
        Watchdog::new(Some(DEFAULT_TIMEOUT))
    }
}

impl Watchdog {
    /// A watchdog that pings after `timeout`, or never (`None`: waits block for ever).
    pub fn new(timeout: Option<Duration>) -> Self {
        Watchdog { timeout }
    }

    /// The watchdog [`TIMEOUT_VAR`] asks for, [`DEFAULT_TIMEOUT`] when it is unset.
    pub fn from_env() -> Result<Watchdog, MpiError> {
        match std::env::var(TIMEOUT_VAR) {
            Err(std::env::VarError::NotPresent) => Ok(Watchdog::default()),
            Err(std::env::VarError::NotUnicode(v)) => Err(bad_timeout(&v.to_string_lossy())),
            Ok(text) => parse_timeout(&text).map(Watchdog::new),
        }
    }

    /// The wait before pinging, `None` for no watchdog.
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout
    }

    /// Waits for `request`, which waits for `awaited`; `what` names the operation in the
    /// message (`"a halo message"`).
    pub fn wait<'a, D: ?Sized, S: Scope<'a>>(
        &self,
        awaited: Awaited,
        what: &str,
        request: Request<'a, D, S>,
    ) -> Status {
        let mut pending = Some(request);
        self.poll(awaited, what, || match pending.take()?.test() {
            Ok(status) => Some(status),
            Err(request) => {
                pending = Some(request);
                None
            }
        })
    }

    /// Calls `ready` until it returns a value, answering other ranks' pings meanwhile; ends
    /// the job when `awaited` goes silent (see the module's documentation).
    pub fn poll<T>(&self, awaited: Awaited, what: &str, mut ready: impl FnMut() -> Option<T>) -> T {
        for _ in 0..SPIN {
            if let Some(t) = ready() {
                return t;
            }
        }
        let world = SimpleCommunicator::world();
        let start = Instant::now();
        let mut deadline = self.timeout.map(|t| start + t);
        let mut answered = 0;
        let mut polls = 0u32;
        loop {
            if let Some(t) = ready() {
                return t;
            }
            polls = polls.wrapping_add(1);
            if polls % CHECK_EVERY != 0 {
                continue;
            }
            answer_pings(&world);
            let (Some(timeout), Some(due)) = (self.timeout, deadline) else {
                continue;
            };
            if Instant::now() < due {
                continue;
            }
            let window = timeout.min(MAX_PING_WINDOW);
            let waited = start.elapsed();
            let silent = match ping(&world, awaited, window, &mut ready) {
                Ok(t) => return t,
                Err(silent) => silent,
            };
            let me = world.rank() as usize;
            if !silent.is_empty() {
                give_up(&world, &silent_message(me, &silent, what, waited, window));
            }
            if answered >= DEADLOCK_ROUNDS {
                give_up(&world, &deadlock_message(me, awaited, what, waited));
            }
            // Those we wait for are alive and waiting themselves: the ranks next to the silent
            // one time out first and name it (and end the job); give them time to do so.
            answered += 1;
            deadline = Some(Instant::now() + timeout);
        }
    }
}

/// Seconds as [`TIMEOUT_VAR`] gives them: a positive number, or `0` for no watchdog.
fn parse_timeout(text: &str) -> Result<Option<Duration>, MpiError> {
    let seconds: f64 = text.trim().parse().map_err(|_| bad_timeout(text))?;
    if seconds == 0.0 {
        return Ok(None);
    }
    Duration::try_from_secs_f64(seconds)
        .map(Some)
        .map_err(|_| bad_timeout(text))
}

fn bad_timeout(text: &str) -> MpiError {
    MpiError::new(
        CommErrorKind::Other,
        format!(
            "{TIMEOUT_VAR}={text:?}: expected the seconds a rank waits for a message before it \
             checks that the sender is alive (a positive number, or 0 to wait for ever)"
        ),
    )
}

/// Pings every rank of `awaited` but this one and collects the answers for `window`, still
/// polling `ready` (the wait may end meanwhile: `Ok`); `Err` holds the ranks that did not
/// answer (empty when all did).
fn ping<T>(
    world: &SimpleCommunicator,
    awaited: Awaited,
    window: Duration,
    ready: &mut impl FnMut() -> Option<T>,
) -> Result<T, Vec<usize>> {
    let me = world.rank() as usize;
    let suspects: Vec<usize> = match awaited {
        Awaited::Rank(r) => vec![r],
        Awaited::Everyone => (0..world.size() as usize).filter(|&r| r != me).collect(),
    };
    // Answers to an earlier round that came too late would pass for answers to this one.
    while let Some(late) = world
        .any_process()
        .immediate_matched_probe_with_tag(PONG_TAG)
    {
        late.0.matched_receive_into(&mut [0u8; 1][..]);
    }
    for &s in &suspects {
        send_byte(world, s, PING_TAG);
    }
    let mut silent = suspects;
    let end = Instant::now() + window;
    while !silent.is_empty() && Instant::now() < end {
        if let Some(t) = ready() {
            return Ok(t);
        }
        answer_pings(world);
        silent.retain(|&s| {
            let Some((pong, _)) = world
                .process_at_rank(s as mpi::Rank)
                .immediate_matched_probe_with_tag(PONG_TAG)
            else {
                return true;
            };
            pong.matched_receive_into(&mut [0u8; 1][..]);
            false
        });
    }
    Err(silent)
}

/// Answers every ping that has arrived.
fn answer_pings(world: &SimpleCommunicator) {
    while let Some((ping, status)) = world
        .any_process()
        .immediate_matched_probe_with_tag(PING_TAG)
    {
        ping.matched_receive_into(&mut [0u8; 1][..]);
        send_byte(world, status.source_rank() as usize, PONG_TAG);
    }
}

/// Sends one byte without waiting for it to leave: a message this small goes out eagerly, and
/// if the receiver's queue is full the answer is not worth blocking for.
fn send_byte(world: &SimpleCommunicator, to: usize, tag: Tag) {
    static BYTE: [u8; 1] = [0];
    let request = world
        .process_at_rank(to as mpi::Rank)
        .immediate_send_with_tag(StaticScope, &BYTE[..], tag);
    if let Err(pending) = request.test() {
        // Its buffer is static: the request may finish whenever it likes.
        std::mem::forget(pending);
    }
}

/// Between two ranks' messages: the ranks next to a silent one find it at about the same time,
/// and the first message's `MPI_Abort` should end the others before they print theirs (on a
/// loaded machine that can take most of a second).
const STAGGER: Duration = Duration::from_millis(1000);

/// Timeouts in which every awaited rank answers pings before the ranks are said to wait for
/// each other: a rank that waits on a neighbour of a silent one must not speak before that
/// neighbour has named it.
const DEADLOCK_ROUNDS: u32 = 3;

/// Prints the message and ends every process of the job. Rank r waits `r` staggers (at most
/// ten) before printing, so that one message is printed, the lowest rank's.
fn give_up(world: &SimpleCommunicator, message: &str) -> ! {
    let me = world.rank().clamp(0, 10) as u32;
    std::thread::sleep(STAGGER * me);
    eprintln!("error: {message}");
    world.abort(SILENT_EXIT_CODE)
}

fn ranks_text(ranks: &[usize]) -> String {
    let mut text = String::new();
    for (i, r) in ranks.iter().enumerate() {
        let sep = match i {
            0 => "",
            _ if i + 1 == ranks.len() => " and ",
            _ => ", ",
        };
        let _ = write!(text, "{sep}{r}");
    }
    text
}

fn silent_message(
    me: usize,
    silent: &[usize],
    what: &str,
    waited: Duration,
    window: Duration,
) -> String {
    let (who, it) = match silent {
        [r] => (format!("rank {r} has"), "it"),
        _ => (format!("ranks {} have", ranks_text(silent)), "they"),
    };
    format!(
        "{who} gone silent: rank {me} waited {:.0} s for {what} and {it} did not answer a ping \
         within {:.0} s (a stopped or hung process, or a lost node); ending every rank. \
         {TIMEOUT_VAR} sets the wait in seconds (default {}).",
        waited.as_secs_f64(),
        window.as_secs_f64(),
        DEFAULT_TIMEOUT.as_secs()
    )
}

fn deadlock_message(me: usize, awaited: Awaited, what: &str, waited: Duration) -> String {
    let who = match awaited {
        Awaited::Rank(r) => format!("rank {r} answers pings but has"),
        Awaited::Everyone => "every rank answers pings but they have".into(),
    };
    format!(
        "rank {me} waited {:.0} s for {what}: {who} not sent it (the ranks wait for each \
         other); ending every rank. {TIMEOUT_VAR} sets the wait in seconds (default {}).",
        waited.as_secs_f64(),
        DEFAULT_TIMEOUT.as_secs()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_timeout_is_seconds_or_zero_for_none() {
        assert_eq!(parse_timeout("5").unwrap(), Some(Duration::from_secs(5)));
        assert_eq!(
            parse_timeout(" 0.5 ").unwrap(),
            Some(Duration::from_millis(500))
        );
        assert_eq!(parse_timeout("0").unwrap(), None);
        for bad in ["", "five", "-1", "inf", "NaN", "1e300"] {
            let e = parse_timeout(bad).unwrap_err().to_string();
            assert!(e.starts_with(&format!("{TIMEOUT_VAR}={bad:?}: ")), "{e}");
        }
    }

    #[test]
    fn the_message_names_the_silent_ranks() {
        let m = silent_message(
            0,
            &[3],
            "a halo message",
            Duration::from_secs(60),
            MAX_PING_WINDOW,
        );
        assert!(
            m.starts_with(
                "rank 3 has gone silent: rank 0 waited 60 s for a halo message and it did not \
                 answer a ping within 10 s"
            ),
            "{m}"
        );
        let m = silent_message(
            1,
            &[0, 2, 3],
            "an all-gather",
            Duration::from_secs(5),
            Duration::from_secs(5),
        );
        assert!(
            m.starts_with("ranks 0, 2 and 3 have gone silent: rank 1 waited 5 s"),
            "{m}"
        );
        let m = deadlock_message(
            2,
            Awaited::Rank(1),
            "a halo message",
            Duration::from_secs(120),
        );
        assert!(
            m.starts_with("rank 2 waited 120 s for a halo message: rank 1 answers pings"),
            "{m}"
        );
    }
}
