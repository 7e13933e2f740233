//! The NT_AMDGPU_METADATA note: a MessagePack map (`amdhsa.version`, `amdhsa.target`,
//! `amdhsa.kernels`) describing each kernel's arguments and resources, code-object v3 and later.

use rmpv::Value;

/// How an argument is passed (`.value_kind`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgKind {
    ByValue,
    GlobalBuffer,
    DynamicSharedPointer,
    /// Filled by the runtime, not the caller.
    Hidden(HiddenArg),
    /// A kind this loader does not fill (images, samplers, pipes, queues): an error at launch.
    Other(String),
}

/// The implicit arguments of code-object v5/v6 (`hidden_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HiddenArg {
    BlockCount(usize),
    GroupSize(usize),
    Remainder(usize),
    GlobalOffset(usize),
    GridDims,
    DynamicLdsSize,
    /// Everything else (printf/hostcall buffers, queues, heap, multigrid, apertures...): zeroed,
    /// as a runtime without those services must.
    Zeroed,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelArg {
    pub name: Option<String>,
    pub type_name: Option<String>,
    pub offset: u32,
    pub size: u32,
    pub kind: ArgKind,
    pub address_space: Option<String>,
    pub is_const: bool,
}

impl KernelArg {
    /// Whether the caller supplies it.
    pub fn is_explicit(&self) -> bool {
        !matches!(self.kind, ArgKind::Hidden(_))
    }

    /// `float*`, `uint`, or the kind when the type is unnamed.
    pub fn describe(&self) -> String {
        match (&self.type_name, &self.kind) {
            (Some(t), _) => t.clone(),
            (None, ArgKind::GlobalBuffer) => "global buffer".into(),
            (None, ArgKind::ByValue) => format!("{}-byte value", self.size),
            (None, k) => format!("{k:?}"),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelMeta {
    pub name: String,
    pub symbol: String,
    pub args: Vec<KernelArg>,
    pub kernarg_segment_size: u32,
    pub kernarg_segment_align: u32,
    pub group_segment_fixed_size: u32,
    pub private_segment_fixed_size: u32,
    pub wavefront_size: u32,
    pub sgpr_count: u32,
    pub vgpr_count: u32,
    pub max_flat_workgroup_size: u32,
    pub uses_dynamic_stack: bool,
}

/// The whole note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Metadata {
    pub version: (u64, u64),
    pub target: String,
    pub kernels: Vec<KernelMeta>,
}

fn get<'a>(map: &'a Value, key: &str) -> Option<&'a Value> {
    map.as_map()?.iter().find(|(k, _)| k.as_str() == Some(key)).map(|(_, v)| v)
}

fn get_u32(map: &Value, key: &str) -> Result<u32, String> {
    get(map, key)
        .and_then(Value::as_u64)
        .and_then(|v| u32::try_from(v).ok())
        .ok_or_else(|| format!("`{key}` missing or not a 32-bit unsigned number"))
}

fn get_str(map: &Value, key: &str) -> Option<String> {
    get(map, key).and_then(Value::as_str).map(str::to_string)
}

fn hidden(kind: &str) -> Option<HiddenArg> {
    let axis = |s: &str| match s {
        "x" => Some(0),
        "y" => Some(1),
        "z" => Some(2),
        _ => None,
    };
    let rest = kind.strip_prefix("hidden_")?;
    Some(if let Some(a) = rest.strip_prefix("block_count_") {
        HiddenArg::BlockCount(axis(a)?)
    } else if let Some(a) = rest.strip_prefix("group_size_") {
        HiddenArg::GroupSize(axis(a)?)
    } else if let Some(a) = rest.strip_prefix("remainder_") {
        HiddenArg::Remainder(axis(a)?)
    } else if let Some(a) = rest.strip_prefix("global_offset_") {
        HiddenArg::GlobalOffset(axis(a)?)
    } else if rest == "grid_dims" {
        HiddenArg::GridDims
    } else if rest == "dynamic_lds_size" {
        HiddenArg::DynamicLdsSize
    } else {
        HiddenArg::Zeroed
    })
}

fn parse_arg(v: &Value) -> Result<KernelArg, String> {
    let kind_name = get_str(v, ".value_kind").ok_or("argument without `.value_kind`")?;
    let kind = match kind_name.as_str() {
        "by_value" => ArgKind::ByValue,
        "global_buffer" => ArgKind::GlobalBuffer,
        "dynamic_shared_pointer" => ArgKind::DynamicSharedPointer,
        k => hidden(k).map(ArgKind::Hidden).unwrap_or_else(|| ArgKind::Other(k.to_string())),
    };
    let size = get_u32(v, ".size")?;
    if kind == ArgKind::GlobalBuffer && size != 8 {
        return Err(format!("a global_buffer argument of .size {size} (a pointer is 8 bytes)"));
    }
    Ok(KernelArg {
        name: get_str(v, ".name"),
        type_name: get_str(v, ".type_name"),
        offset: get_u32(v, ".offset")?,
        size,
        kind,
        address_space: get_str(v, ".address_space"),
        is_const: get(v, ".is_const").and_then(Value::as_bool).unwrap_or(false),
    })
}

fn parse_kernel(v: &Value) -> Result<KernelMeta, String> {
    let name = get_str(v, ".name").ok_or("kernel without `.name`")?;
    let ctx = |e: String| format!("kernel `{name}`: {e}");
    let args = match get(v, ".args") {
        None => Vec::new(),
        Some(a) => a
            .as_array()
            .ok_or_else(|| ctx("`.args` is not an array".into()))?
            .iter()
            .map(parse_arg)
            .collect::<Result<_, _>>()
            .map_err(ctx)?,
    };
    Ok(KernelMeta {
        symbol: get_str(v, ".symbol").unwrap_or_else(|| format!("{name}.kd")),
        args,
        kernarg_segment_size: get_u32(v, ".kernarg_segment_size").map_err(ctx)?,
        kernarg_segment_align: get_u32(v, ".kernarg_segment_align").map_err(ctx)?,
        group_segment_fixed_size: get_u32(v, ".group_segment_fixed_size").map_err(ctx)?,
        private_segment_fixed_size: get_u32(v, ".private_segment_fixed_size").map_err(ctx)?,
        wavefront_size: get_u32(v, ".wavefront_size").map_err(ctx)?,
        sgpr_count: get_u32(v, ".sgpr_count").map_err(ctx)?,
        vgpr_count: get_u32(v, ".vgpr_count").map_err(ctx)?,
        max_flat_workgroup_size: get_u32(v, ".max_flat_workgroup_size").map_err(ctx)?,
        uses_dynamic_stack: get(v, ".uses_dynamic_stack").and_then(Value::as_bool).unwrap_or(false),
        name,
    })
}

/// Decode the note's descriptor bytes.
pub fn parse(desc: &[u8]) -> Result<Metadata, String> {
    let mut cursor = desc;
    let root = rmpv::decode::read_value(&mut cursor).map_err(|e| format!("metadata is not MessagePack: {e}"))?;
    let version = get(&root, "amdhsa.version")
        .and_then(Value::as_array)
        .and_then(|v| Some((v.first()?.as_u64()?, v.get(1)?.as_u64()?)))
        .ok_or("metadata without `amdhsa.version`")?;
    if version.0 != 1 {
        return Err(format!("metadata version {}.{} (this loader reads 1.x)", version.0, version.1));
    }
    let kernels = get(&root, "amdhsa.kernels")
        .and_then(Value::as_array)
        .ok_or("metadata without `amdhsa.kernels`")?
        .iter()
        .map(parse_kernel)
        .collect::<Result<_, _>>()?;
    Ok(Metadata { version, target: get_str(&root, "amdhsa.target").unwrap_or_default(), kernels })
}
