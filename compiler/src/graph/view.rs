//! The shape tracker: how a node's elements map onto its buffer. A [`View`] is a shape, a stride
//! per axis (0 for a broadcast, negative for a flip), an offset and an optional valid range per
//! axis (what padding leaves outside reads as 0). Every movement op is a new view of the same
//! buffer; where a reshape cannot be one view ([`View::reshape`] gives `None`) the scheduler
//! realizes the source into a contiguous buffer first.

/// One view of a buffer.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct View {
    pub shape: Vec<usize>,
    pub strides: Vec<i64>,
    /// Element offset of coordinate 0 (padding can make it negative; such elements are masked).
    pub offset: i64,
    /// Per axis, the coordinates [lo, hi) that read the buffer; outside them the value is 0.
    pub mask: Option<Vec<(usize, usize)>>,
}

/// Row-major strides of `shape` (size-1 axes get stride 0: they never move).
pub fn contiguous_strides(shape: &[usize]) -> Vec<i64> {
    let mut strides = vec![0i64; shape.len()];
    let mut acc = 1i64;
    for i in (0..shape.len()).rev() {
        strides[i] = if shape[i] == 1 { 0 } else { acc };
        acc *= shape[i] as i64;
    }
    strides
}

/// The element count of `shape`.
pub fn numel(shape: &[usize]) -> usize {
    shape.iter().product()
}

impl View {
    pub fn contiguous(shape: &[usize]) -> View {
        View { shape: shape.to_vec(), strides: contiguous_strides(shape), offset: 0, mask: None }
    }

    /// Whether it reads its buffer in row-major order from element 0, nothing masked.
    pub fn is_contiguous(&self) -> bool {
        self.offset == 0 && self.mask.is_none() && self.strides == contiguous_strides(&self.shape)
    }

    /// The same elements under `shape` (equal element count), or `None` where no single view
    /// can say it (a merge of axes that are not laid out together, or of masked axes).
    pub fn reshape(&self, shape: &[usize]) -> Option<View> {
        if self.is_contiguous() || numel(shape) == 0 {
            return Some(View { offset: self.offset, ..View::contiguous(shape) });
        }
        if self.mask.is_some() {
            return None;
        }
        // Size-1 axes carry nothing: match the others in groups of equal products.
        let old: Vec<(usize, i64)> =
            self.shape.iter().zip(&self.strides).filter(|(&n, _)| n != 1).map(|(&n, &s)| (n, s)).collect();
        let mut strides = vec![0i64; shape.len()];
        let (mut i, mut j) = (0usize, 0usize);
        while j < shape.len() {
            if shape[j] == 1 {
                j += 1;
                continue;
            }
            // One group: old axes i..i2 and new axes j..j2 of one product.
            let (mut po, mut pn) = (old.get(i)?.0, shape[j]);
            let (mut i2, mut j2) = (i + 1, j + 1);
            while po != pn {
                if po < pn {
                    po *= old.get(i2)?.0;
                    i2 += 1;
                } else {
                    pn *= *shape.get(j2)?;
                    j2 += 1;
                }
            }
            // The old axes of the group must be one run of memory.
            for k in i..i2 - 1 {
                if old[k].1 != old[k + 1].1 * old[k + 1].0 as i64 {
                    return None;
                }
            }
            let mut stride = old[i2 - 1].1;
            for k in (j..j2).rev() {
                strides[k] = if shape[k] == 1 { 0 } else { stride };
                stride *= shape[k] as i64;
            }
            i = i2;
            j = j2;
        }
        (i == old.len()).then(|| View { shape: shape.to_vec(), strides, offset: self.offset, mask: None })
    }

    pub fn permute(&self, axes: &[usize]) -> View {
        View {
            shape: axes.iter().map(|&a| self.shape[a]).collect(),
            strides: axes.iter().map(|&a| self.strides[a]).collect(),
            offset: self.offset,
            mask: self.mask.as_ref().map(|m| axes.iter().map(|&a| m[a]).collect()),
        }
    }

    /// Size-1 axes broadcast to `shape` (stride 0).
    pub fn expand(&self, shape: &[usize]) -> View {
        let mut v = self.clone();
        for (a, &n) in shape.iter().enumerate() {
            if v.shape[a] != n {
                v.shape[a] = n;
                v.strides[a] = 0;
                if let Some(m) = &mut v.mask {
                    m[a] = if m[a].0 < m[a].1 { (0, n) } else { (0, 0) };
                }
            }
        }
        v
    }

    fn mask_or_full(&self) -> Vec<(usize, usize)> {
        self.mask.clone().unwrap_or_else(|| self.shape.iter().map(|&n| (0, n)).collect())
    }

    pub fn pad(&self, pads: &[(usize, usize)]) -> View {
        if pads.iter().all(|&p| p == (0, 0)) {
            return self.clone();
        }
        let mut mask = self.mask_or_full();
        let mut v = self.clone();
        for (a, &(before, after)) in pads.iter().enumerate() {
            v.offset -= before as i64 * v.strides[a];
            v.shape[a] += before + after;
            mask[a] = (mask[a].0 + before, mask[a].1 + before);
        }
        v.mask = Some(mask);
        v
    }

    pub fn shrink(&self, ranges: &[(usize, usize)]) -> View {
        let mut v = self.clone();
        for (a, &(start, end)) in ranges.iter().enumerate() {
            v.offset += start as i64 * v.strides[a];
            v.shape[a] = end - start;
            if let Some(m) = &mut v.mask {
                let n = end - start;
                let lo = m[a].0.saturating_sub(start).min(n);
                let hi = m[a].1.saturating_sub(start).min(n);
                m[a] = (lo, hi.max(lo));
            }
        }
        v.drop_full_mask();
        v
    }

    pub fn flip(&self, axes: &[bool]) -> View {
        let mut v = self.clone();
        for (a, &f) in axes.iter().enumerate() {
            if f && v.shape[a] > 0 {
                let n = v.shape[a];
                v.offset += (n as i64 - 1) * v.strides[a];
                v.strides[a] = -v.strides[a];
                if let Some(m) = &mut v.mask {
                    m[a] = (n - m[a].1, n - m[a].0);
                }
            }
        }
        v
    }

    /// A mask that covers every axis whole says nothing.
    fn drop_full_mask(&mut self) {
        if let Some(m) = &self.mask {
            if m.iter().zip(&self.shape).all(|(&(lo, hi), &n)| lo == 0 && hi == n) {
                self.mask = None;
            }
        }
    }

    /// The buffer element at `coord`, or `None` where the mask says the value is 0.
    pub fn index(&self, coord: &[usize]) -> Option<i64> {
        if let Some(m) = &self.mask {
            if coord.iter().zip(m).any(|(&c, &(lo, hi))| c < lo || c >= hi) {
                return None;
            }
        }
        Some(self.offset + coord.iter().zip(&self.strides).map(|(&c, &s)| c as i64 * s).sum::<i64>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every coordinate of `shape`, row-major.
    fn coords(shape: &[usize]) -> Vec<Vec<usize>> {
        let mut out = vec![vec![]];
        for &n in shape {
            out = out.into_iter().flat_map(|c| (0..n).map(move |i| [c.clone(), vec![i]].concat())).collect();
        }
        out
    }

    #[test]
    fn reshape_of_a_permuted_view_splits_axes_but_refuses_merges_across_them() {
        let v = View::contiguous(&[2, 3, 4]).permute(&[2, 0, 1]); // [4,2,3]
        let split = v.reshape(&[2, 2, 2, 3]).unwrap();
        for c in coords(&[2, 2, 2, 3]) {
            let old = [c[0] * 2 + c[1], c[2], c[3]];
            assert_eq!(split.index(&c), v.index(&old));
        }
        // Axes 1 and 2 of the permuted view (strides 20 and 5, sizes 3 and 4) are one run of
        // memory; axes 0 and 1 (strides 1 and 20) are not.
        assert!(v.reshape(&[4, 6]).is_some());
        assert!(v.reshape(&[8, 3]).is_none());
    }

    #[test]
    fn pad_then_shrink_and_flip_read_the_right_elements() {
        let v = View::contiguous(&[3]).pad(&[(2, 1)]); // [0,0,a0,a1,a2,0]
        let got: Vec<_> = (0..6).map(|i| v.index(&[i])).collect();
        assert_eq!(got, vec![None, None, Some(0), Some(1), Some(2), None]);
        let f = v.flip(&[true]); // [0,a2,a1,a0,0,0]
        let got: Vec<_> = (0..6).map(|i| f.index(&[i])).collect();
        assert_eq!(got, vec![None, Some(2), Some(1), Some(0), None, None]);
        let s = f.shrink(&[(1, 4)]);
        assert_eq!(s.mask, None);
        assert_eq!((0..3).map(|i| s.index(&[i])).collect::<Vec<_>>(), vec![Some(2), Some(1), Some(0)]);
    }
}
