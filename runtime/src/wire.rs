//! Byte encodings of what ranks in other processes send to rank 0: a field piece at an output
//! step, and a rank's run outcome (probe samples, step records, divergence). Little-endian,
//! lengths first; decoding checks every length and reports a truncated message (an error of
//! kind [`RuntimeErrorKind::Wire`]).

use yee_core::driver::StepRecord;
use yee_core::step_log::{StepLog, StepTotals};
use yee_core::{Box3, Scalar};
use yee_em::Component;
use yee_scalar::RunError;
use yee_scalar::decomposed::{ComponentValues, DftPiece, RankOutput};

use crate::error::{RuntimeError, RuntimeErrorKind};
use crate::piece::Piece;

/// A message that cannot be decoded, saying why.
fn malformed(why: String) -> RuntimeError {
    RuntimeError::new(RuntimeErrorKind::Wire, why)
}

/// Appends values to a message.
#[derive(Default)]
struct Writer(Vec<u8>);

impl Writer {
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn i64(&mut self, v: i64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn f64(&mut self, v: f64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn value<T: Scalar>(&mut self, v: T) {
        let start = self.0.len();
        self.0.resize(start + T::BYTES, 0);
        v.write_le(&mut self.0[start..]);
    }
    fn boxed(&mut self, b: Box3) {
        for v in b.lo.into_iter().chain(b.hi) {
            self.i64(v);
        }
    }
}

/// Reads values back, failing on a short message.
struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], RuntimeError> {
        if self.0.len() < n {
            return Err(malformed(format!(
                "a rank's message ends early ({} bytes left, {n} needed)",
                self.0.len()
            )));
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }
    fn u64(&mut self) -> Result<u64, RuntimeError> {
        Ok(u64::from_le_bytes(
            self.take(8)?.try_into().expect("8 bytes"),
        ))
    }
    fn len(&mut self) -> Result<usize, RuntimeError> {
        let n = self.u64()?;
        // No count can exceed the bytes that remain.
        if n as usize > self.0.len() {
            return Err(malformed(format!(
                "a rank's message claims {n} items in {} bytes",
                self.0.len()
            )));
        }
        Ok(n as usize)
    }
    fn i64(&mut self) -> Result<i64, RuntimeError> {
        Ok(i64::from_le_bytes(
            self.take(8)?.try_into().expect("8 bytes"),
        ))
    }
    fn f64(&mut self) -> Result<f64, RuntimeError> {
        Ok(f64::from_le_bytes(
            self.take(8)?.try_into().expect("8 bytes"),
        ))
    }
    fn value<T: Scalar>(&mut self) -> Result<T, RuntimeError> {
        Ok(T::read_le(self.take(T::BYTES)?))
    }
    fn boxed(&mut self) -> Result<Box3, RuntimeError> {
        let mut v = [0i64; 6];
        for x in &mut v {
            *x = self.i64()?;
        }
        Ok(Box3::new([v[0], v[1], v[2]], [v[3], v[4], v[5]]))
    }
    fn f64s(&mut self) -> Result<Vec<f64>, RuntimeError> {
        let n = self.len()?;
        (0..n).map(|_| self.f64()).collect()
    }
    fn u64s(&mut self) -> Result<Vec<u64>, RuntimeError> {
        let n = self.len()?;
        (0..n).map(|_| self.u64()).collect()
    }
}

impl Writer {
    /// Each component's values, or a marker for an absent one.
    fn components<T: Scalar>(&mut self, fields: &ComponentValues<T>) {
        for f in fields {
            match f {
                None => self.u64(u64::MAX),
                Some(values) => {
                    self.u64(values.len() as u64);
                    values.iter().for_each(|&v| self.value(v));
                }
            }
        }
    }
}

impl Reader<'_> {
    /// What [`Writer::components`] wrote, each present component `len` values long.
    fn components<T: Scalar>(&mut self, len: usize) -> Result<ComponentValues<T>, RuntimeError> {
        let mut fields: ComponentValues<T> = Default::default();
        for f in &mut fields {
            let n = self.u64()?;
            if n != u64::MAX {
                if n as usize != len {
                    return Err(malformed(format!("{n} values where {len} belong")));
                }
                *f = Some((0..n).map(|_| self.value()).collect::<Result<_, _>>()?);
            }
        }
        Ok(fields)
    }
}

/// Encodes a field piece.
pub fn encode_piece<T: Scalar>(owned: Box3, fields: &ComponentValues<T>) -> Vec<u8> {
    let mut w = Writer::default();
    w.boxed(owned);
    w.components(fields);
    w.0
}

/// Decodes a field piece.
pub fn decode_piece<T: Scalar>(bytes: &[u8]) -> Result<Piece<T>, RuntimeError> {
    let mut r = Reader(bytes);
    let owned = r.boxed()?;
    let fields = r.components(owned.cells())?;
    Ok((owned, fields))
}

/// Encodes a tile-set or box-layout rank's piece: its tiles, then each component's values
/// over them, tile after tile (`yee_scalar::tiled::tile_values`).
pub fn encode_tile_piece<T: Scalar>(tiles: &[Box3], fields: &ComponentValues<T>) -> Vec<u8> {
    let mut w = Writer::default();
    w.u64(tiles.len() as u64);
    for &t in tiles {
        w.boxed(t);
    }
    w.components(fields);
    w.0
}

/// Decodes a tile piece.
pub fn decode_tile_piece<T: Scalar>(
    bytes: &[u8],
) -> Result<(Vec<Box3>, ComponentValues<T>), RuntimeError> {
    let mut r = Reader(bytes);
    let count = r.len()?;
    let tiles = (0..count)
        .map(|_| r.boxed())
        .collect::<Result<Vec<_>, _>>()?;
    let fields = r.components(tiles.iter().map(Box3::cells).sum())?;
    Ok((tiles, fields))
}

/// Encodes a rank's outcome without its fields (those travel as pieces at output steps) and
/// without the balancing history (identical on every rank).
pub fn encode_outcome<T: Scalar>(o: &RankOutput<T>) -> Vec<u8> {
    let mut w = Writer::default();
    w.u64(o.rank as u64);
    w.boxed(o.owned);
    w.u64(o.probes.len() as u64);
    for (index, samples) in &o.probes {
        w.u64(*index as u64);
        w.u64(samples.len() as u64);
        for &(step, v) in samples {
            w.u64(step);
            w.value(v);
        }
    }
    let t = &o.records.totals;
    w.u64(t.steps);
    w.f64(t.compute_seconds);
    w.f64(t.share_seconds);
    w.u64(t.bytes_sent);
    w.u64(t.bytes_received);
    w.f64(t.work);
    w.u64(o.records.recent.len() as u64);
    for r in &o.records.recent {
        w.f64(r.compute_seconds);
        w.u64(r.cells);
        w.f64(r.work);
        for v in [&r.share_seconds, &r.transfer_seconds] {
            w.u64(v.len() as u64);
            v.iter().for_each(|&x| w.f64(x));
        }
        for v in [&r.bytes_sent, &r.bytes_received] {
            w.u64(v.len() as u64);
            v.iter().for_each(|&x| w.u64(x));
        }
    }
    w.u64(o.dft.len() as u64);
    for d in &o.dft {
        w.u64(d.monitor as u64);
        w.u64(d.per_node as u64);
        w.boxed(d.part);
        w.components(&d.sums);
    }
    match o.diverged {
        None => w.u64(0),
        Some(RunError::Diverged {
            step,
            component,
            cell,
        }) => {
            w.u64(1);
            w.u64(step);
            w.u64(component.index() as u64);
            cell.into_iter().for_each(|c| w.i64(c));
        }
        Some(RunError::TooManyMaterials { limit }) => {
            w.u64(2);
            w.u64(limit as u64);
        }
    }
    w.0
}

/// Decodes a rank's outcome (no fields, history or balancer).
pub fn decode_outcome<T: Scalar>(bytes: &[u8]) -> Result<RankOutput<T>, RuntimeError> {
    let mut r = Reader(bytes);
    let rank = r.u64()? as usize;
    let owned = r.boxed()?;
    let n = r.len()?;
    let mut probes = Vec::with_capacity(n);
    for _ in 0..n {
        let index = r.u64()? as usize;
        let m = r.len()?;
        let samples = (0..m)
            .map(|_| Ok((r.u64()?, r.value()?)))
            .collect::<Result<Vec<_>, RuntimeError>>()?;
        probes.push((index, samples));
    }
    let mut records = StepLog {
        totals: StepTotals {
            steps: r.u64()?,
            compute_seconds: r.f64()?,
            share_seconds: r.f64()?,
            bytes_sent: r.u64()?,
            bytes_received: r.u64()?,
            work: r.f64()?,
        },
        recent: Default::default(),
    };
    let n = r.len()?;
    for _ in 0..n {
        let compute_seconds = r.f64()?;
        let cells = r.u64()?;
        let work = r.f64()?;
        let share_seconds = r.f64s()?;
        let transfer_seconds = r.f64s()?;
        let bytes_sent = r.u64s()?;
        let bytes_received = r.u64s()?;
        records.recent.push_back(StepRecord {
            compute_seconds,
            share_seconds,
            bytes_sent,
            bytes_received,
            cells,
            work,
            transfer_seconds,
        });
    }
    let n = r.len()?;
    let mut dft = Vec::with_capacity(n);
    for _ in 0..n {
        let monitor = r.u64()? as usize;
        let per_node = r.len()?;
        let part = r.boxed()?;
        let sums = r.components(part.cells() * per_node)?;
        dft.push(DftPiece {
            monitor,
            per_node,
            part,
            sums,
        });
    }
    let diverged = match r.u64()? {
        0 => None,
        2 => Some(RunError::TooManyMaterials {
            limit: r.u64()? as usize,
        }),
        1 => {
            let step = r.u64()?;
            let c = r.u64()? as usize;
            let component = *Component::ALL
                .get(c)
                .ok_or_else(|| malformed(format!("component index {c} out of range")))?;
            let cell = [r.i64()?, r.i64()?, r.i64()?];
            Some(RunError::Diverged {
                step,
                component,
                cell,
            })
        }
        tag => {
            return Err(malformed(format!(
                "unknown stop reason {tag} in a rank's message"
            )));
        }
    };
    if !r.0.is_empty() {
        return Err(malformed(format!(
            "{} bytes left over in a rank's message",
            r.0.len()
        )));
    }
    Ok(RankOutput {
        probes,
        records,
        dft,
        diverged,
        ..RankOutput::empty(rank, owned)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_complex::Complex;

    #[test]
    fn outcomes_and_pieces_round_trip() {
        let owned = Box3::new([1, 2, 3], [3, 4, 4]);
        let mut record = StepRecord::for_directions(2);
        record.compute_seconds = 0.25;
        record.share_seconds = vec![1e-3, 2e-3];
        record.transfer_seconds = vec![f64::NAN, 4e-6];
        record.bytes_sent = vec![8, 16];
        record.bytes_received = vec![24, 32];
        record.cells = 4;
        record.work = 4.5;
        let out = RankOutput {
            probes: vec![(
                1,
                vec![(1, Complex::new(0.5, -2.0)), (2, Complex::new(1e-300, 3.0))],
            )],
            records: {
                let mut log = StepLog::default();
                log.push(record.clone());
                log.push(record);
                log
            },
            dft: vec![DftPiece {
                monitor: 2,
                per_node: 4,
                part: owned,
                sums: std::array::from_fn(|c| {
                    (c == 4).then(|| vec![Complex::new(1.5, -0.25); 4 * owned.cells()])
                }),
            }],
            diverged: Some(RunError::Diverged {
                step: 7,
                component: Component::Hy,
                cell: [1, 2, 3],
            }),
            ..RankOutput::empty(3, owned)
        };
        let back: RankOutput<Complex<f64>> = decode_outcome(&encode_outcome(&out)).unwrap();
        assert_eq!(back.rank, 3);
        assert_eq!(back.owned, owned);
        assert_eq!(back.probes, out.probes);
        assert_eq!(back.dft, out.dft);
        assert_eq!(back.diverged, out.diverged);
        assert_eq!(back.records.totals, out.records.totals);
        assert_eq!(back.records.recent.len(), 2);
        assert_eq!(
            back.records.recent[0].share_seconds,
            out.records.recent[0].share_seconds
        );
        assert!(back.records.recent[0].transfer_seconds[0].is_nan());
        assert_eq!(back.records.recent[1].bytes_received, vec![24, 32]);

        let fields: [Option<Vec<f32>>; 6] =
            std::array::from_fn(|c| (c % 2 == 0).then(|| vec![c as f32 + 0.5; owned.cells()]));
        let bytes = encode_piece(owned, &fields);
        assert_eq!(decode_piece::<f32>(&bytes).unwrap(), (owned, fields));
        assert!(decode_piece::<f32>(&bytes[..bytes.len() - 1]).is_err());
        assert!(decode_outcome::<f32>(&[1, 2, 3]).is_err());

        let refused = RankOutput::<f32> {
            diverged: Some(RunError::TooManyMaterials { limit: 65536 }),
            ..RankOutput::empty(0, owned)
        };
        let back: RankOutput<f32> = decode_outcome(&encode_outcome(&refused)).unwrap();
        assert_eq!(back.diverged, refused.diverged);
    }
}
