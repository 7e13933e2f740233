//! RM_FREE: freeing an object and everything under it.

use super::*;

/// RM_FREE: the object and everything under it. Channels that could touch what goes are
/// stopped into `retired` (joined before the escape returns); see [`teardown`] for the order.
pub(super) fn free(inner: &Arc<Inner>, a: &NVOS00_PARAMETERS, retired: &mut Retired) -> St<()> {
    let mut st = inner.lock();
    if !matches!(st.objects.get(&a.h_root), Some(Obj { kind: ObjKind::Client, .. })) {
        return Err(NV_ERR_INVALID_CLIENT);
    }
    let target = if a.h_object_old == 0 { a.h_root } else { a.h_object_old };
    if !st.objects.contains_key(&target) || client_of(&st, target) != Some(a.h_root) {
        return Err(NV_ERR_OBJECT_NOT_FOUND);
    }
    let mut doomed = vec![target];
    let mut i = 0;
    while i < doomed.len() {
        let h = doomed[i];
        doomed.extend(st.objects.iter().filter(|(_, o)| o.parent == h).map(|(k, _)| *k));
        i += 1;
    }
    for h in doomed {
        let Some(o) = st.objects.remove(&h) else { continue };
        if let Some(ch) = st.channels.remove(&h) {
            retired.push(ch, None);
        }
        let pinned: Vec<Handle> = st.channels.iter().filter(|(_, c)| c.pins.contains(&h)).map(|(k, _)| *k).collect();
        for k in pinned {
            let why = format!("memory {h:#x} (its USERD or error notifier) was freed while the channel was live");
            retired.push(st.channels.remove(&k).expect("listed"), Some(why));
        }
        if let ObjKind::Channel(c) = &o.kind {
            inner.fault_records.lock().unwrap_or_else(|e| e.into_inner()).remove(&c.token);
        }
        match o.kind {
            ObjKind::Memory { gpu, class, size, backing } => {
                let mapped = st.gpu_maps.values().any(|m| m.memory == h);
                st.gpu_maps.retain(|_, m| m.memory != h);
                match backing {
                    Backing::Arena { off, view } => teardown::release(&mut st, Freed { view, off, size }),
                    // The caller unmaps its own pages once we return: a channel at work may
                    // hold a translation of them, so it stops (RM would fault it).
                    Backing::Host { .. } if mapped => {
                        let busy: Vec<Handle> = st
                            .channels
                            .iter()
                            .filter(|(_, c)| c.busy.load(Ordering::Acquire))
                            .map(|(k, _)| *k)
                            .collect();
                        for k in busy {
                            let why = format!("memory {h:#x} was freed while the channel was using the GPU's mappings");
                            retired.push(st.channels.remove(&k).expect("listed"), Some(why));
                        }
                    }
                    Backing::Host { .. } => {}
                }
                if class == NV01_MEMORY_LOCAL_USER {
                    st.vram_used[gpu] -= size;
                }
            }
            ObjKind::Usermode { backing: Backing::Arena { off, view }, .. } => {
                // Under the list's lock, which the watcher holds while it reads the bells.
                inner.doorbells.lock().unwrap_or_else(|e| e.into_inner()).retain(|b| *b != view + DOORBELL_OFFSET);
                teardown::release(&mut st, Freed { view, off, size: USERMODE_SIZE });
            }
            _ => {}
        }
    }
    Ok(())
}
