//! The material id of every node of a chunk, and the table that names them: built in parts of
//! whole storage rows, which an executor may build at once ([`PartExecutor::each_part`]), and
//! numbered as one pass over the nodes in storage order would number them.

use alloc::collections::BTreeMap;
use alloc::vec;
use alloc::vec::Vec;
use yee_core::Box3;
use yee_em::medium::MediumBits;
use yee_em::{Component, Material, NodeMedium, Placement, RowScratch, Setup, Stretch};

use crate::part_executor::PartExecutor;

/// The most distinct materials one chunk's nodes can name with `u16` ids (the inactive id
/// included).
pub const MAX_MATERIAL_IDS: usize = 1 << 16;

/// Nodes per part of [`component_ids`]: a few pages of ids, a plane of a 128² grid.
const PART_CELLS: usize = 1 << 14;

/// Parts placed at once before their materials are named ([`component_ids_in_parts`]).
const WAVE_PARTS: usize = 64;

/// The materials of a chunk's nodes, each given an id the first time it is met. `None` is the
/// inactive id (zero coefficients). Materials are told apart by their bits, so equal mixes from
/// different regions share an id, and a grid of one material keeps one id (the fast kernels'
/// uniform case).
#[derive(Debug)]
pub(crate) struct MaterialTable {
    /// The material of each id.
    pub(crate) materials: Vec<Option<NodeMedium>>,
    ids: BTreeMap<Option<MediumBits>, u16>,
    last: Option<(Option<MediumBits>, u16)>,
    /// Set once a material past [`MAX_MATERIAL_IDS`] was asked for.
    pub(crate) overflow: bool,
}

impl MaterialTable {
    /// A table whose id 0 is the whole `background`.
    pub(crate) fn new(background: Material) -> Self {
        let mut table = MaterialTable {
            materials: Vec::new(),
            ids: BTreeMap::new(),
            last: None,
            overflow: false,
        };
        table.id(Some(NodeMedium::whole(background)));
        table
    }

    /// The id of `material` (`None`: inactive), given now if it is new. Past
    /// [`MAX_MATERIAL_IDS`] the table sets `overflow` and answers 0.
    pub(crate) fn id(&mut self, material: Option<NodeMedium>) -> u16 {
        let key = material.map(|m| m.to_bits());
        // Neighbouring nodes mostly share a material: skip the map for a repeat.
        if let Some((last, id)) = self.last {
            if last == key {
                return id;
            }
        }
        let id = match self.ids.get(&key) {
            Some(&id) => id,
            None => match u16::try_from(self.materials.len()) {
                Ok(id) => {
                    self.materials.push(material);
                    self.ids.insert(key, id);
                    id
                }
                Err(_) => {
                    self.overflow = true;
                    0
                }
            },
        };
        self.last = Some((key, id));
        id
    }
}

/// One component's material ids as a chunk keeps them: one per storage node, or, where they
/// are all the same, that one id alone ([`crate::YeeState::one_id`]).
#[derive(Clone, Copy, Debug)]
pub struct NodeIds<'a> {
    /// One id per storage node (empty when `one` is set).
    pub ids: &'a [u16],
    /// The id of every node, if they share one.
    pub one: Option<u16>,
}

impl NodeIds<'_> {
    /// The id of the node at storage offset `offset`.
    #[inline(always)]
    pub fn at(&self, offset: usize) -> u16 {
        match self.one {
            Some(id) => id,
            None => self.ids[offset],
        }
    }
}

/// Whether `cell` lies inside a grid of `grid` cells (not a ghost beyond it).
pub(crate) fn inside_grid(grid: [usize; 3], cell: yee_core::Index3) -> bool {
    (0..3).all(|a| cell[a] >= 0 && (cell[a] as u64) < grid[a] as u64)
}

/// The id every one of `ids` is, if they are all the same (every id compared, no early exit:
/// a loop the compiler can vectorise); `None` for none.
pub(crate) fn one_of(ids: &[u16]) -> Option<u16> {
    let &first = ids.first()?;
    (ids.iter().fold(0, |d, &id| d | (id ^ first)) == 0).then_some(first)
}

/// The material ids of `component`'s nodes over `storage`, named in `table`, as the chunk
/// keeps them: `(ids, None)` one per node, or `(empty, Some(id))` where every node has `id`
/// ([`crate::YeeState::one_id`]). Without regions or a mask every node is the background (along
/// the component's axis, where it is anisotropic), placed without a pass over the nodes.
/// Otherwise each part of [`PART_CELLS`] nodes (whole rows) is placed with a table of its own,
/// by `kernel`'s [`PartExecutor::each_part`] (at once, on a pool); the parts' materials are
/// then named in `table` part after part, each in the order its nodes first met them, so the
/// ids are those of one pass over the nodes in storage order, and the parts' ids are mapped
/// to them.
pub(crate) fn component_ids(
    setup: &Setup,
    component: Component,
    storage: Box3,
    table: &mut MaterialTable,
    kernel: &impl PartExecutor,
) -> (Vec<u16>, Option<u16>) {
    if setup.regions.is_empty() && setup.active.is_none() {
        let background = placed_id(setup, component, Placement::whole(None), table);
        return (Vec::new(), Some(background));
    }
    let rows = (PART_CELLS / storage.extent()[0].max(1)).max(1);
    let ids = component_ids_in_parts(setup, component, storage, table, kernel, rows);
    match one_of(&ids) {
        Some(id) => (Vec::new(), Some(id)),
        None => (ids, None),
    }
}

/// [`component_ids`]' search in parts of `rows` whole storage rows, one id per node.
pub(crate) fn component_ids_in_parts(
    setup: &Setup,
    component: Component,
    storage: Box3,
    table: &mut MaterialTable,
    kernel: &impl PartExecutor,
    rows: usize,
) -> Vec<u16> {
    let mut ids = vec![0u16; storage.cells()];
    let width = storage.extent()[0];
    if ids.is_empty() {
        return ids;
    }
    let part = rows * width;
    let background = setup.background;
    // Wave after wave of parts, so that the parts' materials waiting to be named are a
    // wave's, not the whole chunk's (a smoothed surface makes thousands of them).
    for (w, ids) in ids.chunks_mut(WAVE_PARTS * part).enumerate() {
        let first = w * WAVE_PARTS;
        // Each part's materials, in the order of its ids (its map is dropped with the part).
        let parts = kernel.each_part(ids, part, |p, ids| {
            let mut own = MaterialTable::new(background);
            place_rows(setup, component, storage, (first + p) * rows, ids, &mut own);
            (own.materials, own.overflow)
        });
        // Each part's ids mapped to `table`'s; `None` where they are the same.
        let maps: Vec<Option<Vec<u16>>> = parts
            .into_iter()
            .map(|(materials, overflow)| {
                table.overflow |= overflow;
                let map: Vec<u16> = materials.into_iter().map(|m| table.id(m)).collect();
                let same = map.iter().enumerate().all(|(i, &id)| usize::from(id) == i);
                (!same).then_some(map)
            })
            .collect();
        if maps.iter().any(Option::is_some) {
            kernel.each_part(ids, part, |p, ids| {
                if let Some(map) = &maps[p] {
                    for id in ids {
                        *id = map[usize::from(*id)];
                    }
                }
            });
        }
    }
    ids
}

/// The id in `table` of a node of `component` placed as `placement`.
fn placed_id(
    setup: &Setup,
    component: Component,
    placement: Placement,
    table: &mut MaterialTable,
) -> u16 {
    table.id(Some(match component.is_electric() {
        true => placement.medium(setup, component.axis()),
        // H sees μ and σ* only: its nodes need no poles.
        false => NodeMedium::of_h_node(placement.material(setup, Some(component.axis()))),
    }))
}

/// Places the nodes of `component` on the storage rows from row `first` on (rows run y, then
/// z), `ids` their ids in `table`: only the nodes near some region's surface take the search;
/// the stretches between are placed whole (`yee_em::row_placement`).
fn place_rows(
    setup: &Setup,
    component: Component,
    storage: Box3,
    first: usize,
    ids: &mut [u16],
    table: &mut MaterialTable,
) {
    let [width, ey, _] = storage.extent();
    let electric = component.is_electric();
    // A node's id follows from its placement alone: runs of nodes placed alike (all of a
    // vacuum grid, most of any) reuse the last id without weighing the medium.
    let mut last: Option<(Placement, u16)> = None;
    let mut id_of = |table: &mut MaterialTable, placement: Placement| match last {
        Some((p, id)) if p == placement => id,
        _ => {
            let id = placed_id(setup, component, placement, table);
            last = Some((placement, id));
            id
        }
    };
    let mut scratch = RowScratch::default();
    let xs = (storage.lo[0], storage.hi[0]);
    for (r, row) in ids.chunks_exact_mut(width).enumerate() {
        let n = first + r;
        let (y, z) = (
            storage.lo[1] + (n % ey) as i64,
            storage.lo[2] + (n / ey) as i64,
        );
        setup.row_stretches(component, [y, z], xs, &mut scratch, |a, b, stretch| {
            let cells = &mut row[(a - xs.0) as usize..(b - xs.0) as usize];
            if let (Stretch::Whole(region), None) = (stretch, setup.active) {
                cells.fill(id_of(table, Placement::whole(region)));
                return;
            }
            for (x, id) in (a..b).zip(cells) {
                let cell = [x, y, z];
                if inside_grid(setup.grid, cell) && !setup.is_active(cell) {
                    *id = table.id(None);
                    continue;
                }
                let placement = match stretch {
                    Stretch::Whole(region) => Placement::whole(region),
                    Stretch::Search(among) => {
                        if let Some(smoothed) = setup.smoothed_medium_among(component, cell, among)
                        {
                            *id = table.id(Some(match electric {
                                true => smoothed,
                                false => NodeMedium::of_h_node(smoothed.material),
                            }));
                            continue;
                        }
                        setup.placement_among(component.position(cell), among)
                    }
                };
                *id = id_of(table, placement);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_names_each_material_once_and_stops_at_the_limit() {
        let mut table = MaterialTable::new(Material::VACUUM);
        let glass = Material::dielectric(4.0);
        assert_eq!(table.id(Some(NodeMedium::whole(Material::VACUUM))), 0);
        assert_eq!(table.id(Some(NodeMedium::whole(glass))), 1);
        assert_eq!(table.id(None), 2);
        assert_eq!(table.id(Some(NodeMedium::whole(Material::VACUUM))), 0);
        assert_eq!(table.id(Some(NodeMedium::whole(glass))), 1);
        for n in 3..MAX_MATERIAL_IDS {
            let id = table.id(Some(NodeMedium::whole(Material::dielectric(
                10.0 + n as f64,
            ))));
            assert_eq!(usize::from(id), n);
        }
        assert!(!table.overflow, "{MAX_MATERIAL_IDS} materials fit");
        table.id(Some(NodeMedium::whole(Material::dielectric(0.5))));
        assert!(table.overflow);
    }
}
