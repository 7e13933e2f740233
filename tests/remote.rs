//! The remote transport over loopback: a `baregpu serve` server in a thread (or the built binary),
//! clients through `RemotePci`, and a frame-aware proxy between them that tampers, replays or
//! cuts the link. Every address is 127.0.0.1; every wait is bounded.

use baregpu::drivers::amd::am::AmDevice;
use baregpu::drivers::pci::remote::{Key, RemotePci, Server};
use baregpu::drivers::pci::{PciDevice, AMD_BAR_VRAM};
use baregpu::emu::am::firmware_standin::StandinSource;
use baregpu::emu::am::layout::Layout;
use baregpu::emu::am::EmuPciGpu;
use baregpu::emu::rdna::Interpreter;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::mpsc::{channel, Receiver};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const DEVICE: &str = "am:emu:gfx1100";
const WAIT: Duration = Duration::from_secs(5);

fn key(byte: u8) -> Key {
    Key::from_bytes([byte; 32])
}

/// A server of DEVICE in a thread: its address and the lines it reports per session.
fn serve_with(key: Option<Key>, gpu: Option<Arc<EmuPciGpu>>) -> (SocketAddr, Receiver<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let opener = Box::new(move |spec: &str| match &gpu {
        // One GPU for every session: a test can look at what a session did (or did not do) to it.
        Some(g) => Ok(g.clone() as Arc<dyn PciDevice>),
        None => baregpu::pci_device::open(&spec.parse().map_err(|e| format!("{e}"))?).map_err(|e| e.to_string()),
    });
    let (tx, rx) = channel();
    let tx = Mutex::new(tx);
    let report = Arc::new(move |line: String| {
        let _ = tx.lock().unwrap().send(line);
    });
    let server = Server::new(vec![DEVICE.to_string()], key, opener);
    let server = Arc::new(server.with_arch(Box::new(baregpu::pci_device::arch_of)));
    std::thread::spawn(move || server.serve(listener, report));
    (addr, rx)
}

fn serve(key: Option<Key>) -> (SocketAddr, Receiver<String>) {
    serve_with(key, None)
}

fn connect(addr: SocketAddr, key: Option<&Key>) -> baregpu::drivers::Result<Arc<RemotePci>> {
    RemotePci::connect("127.0.0.1", addr.port(), DEVICE, key, WAIT)
}

fn shared_gpu() -> Arc<EmuPciGpu> {
    EmuPciGpu::new("gfx1100", Arc::new(Interpreter::new("gfx1100"))).unwrap()
}

/// The next line the server reports.
fn report(rx: &Receiver<String>) -> String {
    rx.recv_timeout(WAIT).expect("the server reports the session's end")
}

#[test]
fn the_am_driver_boots_over_a_keyed_loopback_link() {
    let k = key(7);
    let (addr, _rx) = serve(Some(k.clone()));
    let pci = connect(addr, Some(&k)).unwrap();
    assert!(pci.name().starts_with(&format!("remote:127.0.0.1:{}/emu:gfx1100", addr.port())), "{}", pci.name());
    assert!(pci.bar(AMD_BAR_VRAM).is_some_and(|b| b.size > 0));
    let layout = Layout::for_arch("gfx1100").unwrap();
    let mut dev = AmDevice::open(pci, &StandinSource::for_layout(&layout)).expect("the AM boot over the link");
    assert_eq!(dev.gc_major(), 11);
    // VRAM and system memory, written and read back through the driver over the link.
    for vram in [true, false] {
        let a = dev.alloc(0x3000, vram).unwrap();
        let data: Vec<u8> = (0..0x2345u32).map(|i| (i * 7 + vram as u32) as u8).collect();
        dev.write(&a, 0x10, &data).unwrap();
        let mut back = vec![0; data.len()];
        dev.read(&a, 0x10, &mut back).unwrap();
        assert_eq!(back, data, "vram={vram}");
        dev.free(a).unwrap();
    }
    dev.close().unwrap();
}

#[test]
fn the_link_bench_checks_its_copies_over_loopback() {
    let (addr, _rx) = serve(None);
    let spec = format!("remote:127.0.0.1:{}/{DEVICE}", addr.port()).parse().unwrap();
    let pci = baregpu::pci_device::open(&spec).unwrap();
    let mut f = baregpu::bench_link::run(&*pci, 50, 5000, 3 << 20, 2).unwrap();
    assert_eq!(f.copy_bytes, 6 << 20);
    assert!(f.read_rtt_us > 0.0 && f.posted_writes_per_s > 0.0 && f.dma_read_gb_s > 0.0, "{f:?}");
    // A graph replay's cost, through the runtime booted over the same link.
    let fw = baregpu::pci_device::firmware(&spec);
    let dev = baregpu::device::open_am_over(pci.clone(), &*fw, "link bench").unwrap();
    let gpu = baregpu::gpu::from_device(baregpu::device::Device::Amd(dev)).unwrap();
    let e = baregpu::bench_link::replay(&mut f, &*pci, &*gpu, 0, 5).unwrap_err().to_string();
    assert!(e.contains("--replay 0: expected 1 to"), "{e}");
    baregpu::bench_link::replay(&mut f, &*pci, &*gpu, 16, 5).unwrap();
    assert_eq!(f.replay_nodes, 16);
    assert!(f.replay_us.is_some_and(|us| us > 0.0), "{f:?}");
    assert!(f.replay_round_trips.is_some_and(|n| n >= 1.0), "{f:?}");
}

#[test]
fn a_wrong_key_or_a_missing_one_is_refused_on_both_sides() {
    let (addr, rx) = serve(Some(key(1)));
    let e = connect(addr, Some(&key(2))).unwrap_err().to_string();
    assert!(e.contains(&format!("remote:127.0.0.1:{}", addr.port())) && e.contains("wrong key"), "{e}");
    let s = report(&rx);
    assert!(s.contains("client 127.0.0.1:") && s.contains("wrong key"), "{s}");
    let e = connect(addr, None).unwrap_err().to_string();
    assert!(e.contains("requires a pre-shared key"), "{e}");
    assert!(report(&rx).contains("requires a pre-shared key"));
    // The device was never claimed: the right key opens it.
    connect(addr, Some(&key(1))).unwrap();
}

#[test]
fn an_unknown_device_is_refused_on_both_sides() {
    let (addr, rx) = serve(None);
    let e = RemotePci::connect("127.0.0.1", addr.port(), "am:emu:gfx942", None, WAIT).unwrap_err().to_string();
    assert!(e.contains("unknown device am:emu:gfx942 (this server serves: am:emu:gfx1100)"), "{e}");
    assert!(report(&rx).contains("unknown device am:emu:gfx942"));
}

#[test]
fn a_second_client_is_told_who_holds_the_device_and_gets_it_once_released() {
    let (addr, rx) = serve(None);
    let first = connect(addr, None).unwrap();
    first.read32(AMD_BAR_VRAM, 0).unwrap();
    let e = connect(addr, None).unwrap_err().to_string();
    assert!(e.contains("am:emu:gfx1100 is in use by 127.0.0.1:"), "{e}");
    assert!(report(&rx).contains("in use by"));
    drop(first);
    assert!(report(&rx).contains("released am:emu:gfx1100"));
    connect(addr, None).unwrap().read32(AMD_BAR_VRAM, 0).unwrap();
}

/// A client that closes and at once opens again is never told the device is in use: the close
/// returns only once the server has released it.
#[test]
fn closing_and_reopening_at_once_never_finds_the_device_in_use() {
    let k = key(4);
    let (addr, rx) = serve(Some(k.clone()));
    for i in 0..20u32 {
        let pci = connect(addr, Some(&k)).unwrap_or_else(|e| panic!("open {i}: {e}"));
        // A posted write, still pending at the close, reaches the device before the release.
        pci.write32(AMD_BAR_VRAM, 0x40, i).unwrap();
        let dma = pci.alloc_dma(0x1000, false).unwrap();
        dma.write(0, &i.to_le_bytes()).unwrap();
        if i > 0 {
            assert_eq!(pci.read32(AMD_BAR_VRAM, 0x40).unwrap(), i);
        }
        drop(dma);
        drop(pci);
        assert!(report(&rx).contains("released am:emu:gfx1100"));
    }
}

/// `List`: what a server exports and who holds it; a wrong key is an error naming the server.
#[test]
fn a_server_lists_its_devices_and_who_holds_them() {
    use baregpu::drivers::pci::remote::list;
    let k = key(6);
    let (addr, _rx) = serve(Some(k.clone()));
    let spec = format!("remote:127.0.0.1:{}/{DEVICE}", addr.port());
    let free = list("127.0.0.1", addr.port(), Some(&k), WAIT).unwrap();
    assert_eq!(free.len(), 1);
    assert_eq!((free[0].spec.as_str(), free[0].holder.as_deref()), (spec.as_str(), None));
    let held = connect(addr, Some(&k)).unwrap();
    let busy = list("127.0.0.1", addr.port(), Some(&k), WAIT).unwrap();
    assert!(busy[0].holder.as_deref().is_some_and(|h| h.starts_with("127.0.0.1:")), "{busy:?}");
    drop(held);
    let e = list("127.0.0.1", addr.port(), Some(&key(7)), WAIT).unwrap_err().to_string();
    assert!(e.contains(&format!("remote:127.0.0.1:{}", addr.port())) && e.contains("wrong key"), "{e}");
}

/// `devices --remote`: each server's devices are rows of the listing (and of --json); a server
/// with another key, or none listening, is one line and the command still succeeds.
#[test]
fn devices_lists_what_remote_servers_export_and_one_line_per_server_it_cannot_ask() {
    let k = key(8);
    let (good, _rx) = serve(Some(k.clone()));
    let (other, _rx2) = serve(Some(key(9)));
    let gone = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let key_file = dir.path().join("key");
    std::fs::write(&key_file, "08".repeat(32)).unwrap();
    let run = |json: bool| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_baregpu"));
        cmd.args(["devices", "--remote", &good.to_string(), "--remote", &other.to_string()]);
        cmd.args(json.then_some("--json"));
        let out = cmd
            .env("BAREGPU_REMOTE_KEY_FILE", &key_file)
            .env("BAREGPU_REMOTE_SERVERS", gone.to_string())
            .env("BAREGPU_REMOTE_TIMEOUT_S", "2")
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let spec = format!("remote:{good}/{DEVICE}");
    let table = run(false);
    let row = table.lines().find(|l| l.starts_with(&spec)).unwrap_or_else(|| panic!("{spec} not listed: {table}"));
    assert!(row.contains("gfx1100") && row.contains(" ready") && !row.contains("not ready"), "{row}");
    assert!(table.contains(&format!("remote server {other}: ")) && table.contains("wrong key"), "{table}");
    assert!(table.contains(&format!("remote server {gone}: ")), "{table}");
    // While a client holds it, the listing says who.
    let held = connect(good, Some(&k)).unwrap();
    let v: serde_json::Value = serde_json::from_str(&run(true)).unwrap();
    let d = v["devices"].as_array().unwrap().iter().find(|d| d["spec"] == spec.as_str()).expect("listed");
    assert_eq!(
        (d["kind"].as_str(), d["arch"].as_str(), d["ready"].as_bool()),
        (Some("remote"), Some("gfx1100"), Some(false))
    );
    assert!(d["note"].as_str().unwrap().starts_with("in use by 127.0.0.1:"), "{d}");
    assert_eq!(v["remote_errors"].as_array().map(Vec::len), Some(2), "{v}");
    drop(held);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_baregpu"))
        .args(["devices", "--remote", "nowhere"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        "baregpu: error: devices: --remote nowhere: needs HOST:PORT"
    );
}

#[test]
fn a_keyless_link_beyond_loopback_is_refused_before_connecting() {
    // 192.0.2.1 is TEST-NET-1: never reached, the client refuses before any packet.
    let e = RemotePci::connect("192.0.2.1", 1, DEVICE, None, WAIT).unwrap_err().to_string();
    assert!(
        e.contains("remote:192.0.2.1:1: a link beyond loopback needs a pre-shared key (BAREGPU_REMOTE_KEY_FILE)"),
        "{e}"
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_baregpu"))
        .args(["serve", "--listen", "0.0.0.0:0", "--device", DEVICE])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.trim(),
        "baregpu: error: listen 0.0.0.0:0: a link beyond loopback needs a pre-shared key (--key-file F)"
    );
}

#[test]
fn a_server_that_never_answers_is_an_error_naming_the_link_within_the_timeout() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let t = Instant::now();
    let e = RemotePci::connect("127.0.0.1", port, DEVICE, None, Duration::from_millis(300)).unwrap_err().to_string();
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    assert!(e.contains(&format!("remote:127.0.0.1:{port}")) && e.contains("no answer"), "{e}");
    drop(listener);
}

/// What the proxy does to the frames of one direction.
#[derive(Clone, Copy, PartialEq)]
enum Fault {
    Pass,
    /// Flip a bit of frame `n`.
    Tamper(usize),
    /// Send frame `n` twice.
    Replay(usize),
}

/// A proxy in front of `server` that forwards whole frames, applying `up` to the client's and
/// `down` to the server's; `cut` closes every connection it carries.
struct Proxy {
    addr: SocketAddr,
    streams: Arc<Mutex<Vec<TcpStream>>>,
}

impl Proxy {
    fn new(server: SocketAddr, up: Fault, down: Fault) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let streams = Arc::new(Mutex::new(Vec::new()));
        let kept = streams.clone();
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { return };
                let upstream = TcpStream::connect(server).unwrap();
                kept.lock().unwrap().extend([client.try_clone().unwrap(), upstream.try_clone().unwrap()]);
                let (c2, u2) = (client.try_clone().unwrap(), upstream.try_clone().unwrap());
                std::thread::spawn(move || pump(client, upstream, up));
                std::thread::spawn(move || pump(u2, c2, down));
            }
        });
        Proxy { addr, streams }
    }

    fn cut(&self) {
        for s in self.streams.lock().unwrap().iter() {
            let _ = s.shutdown(std::net::Shutdown::Both);
        }
    }
}

fn pump(mut from: TcpStream, mut to: TcpStream, fault: Fault) {
    // Each frame goes out in one write, at once (no Nagle delay per round trip).
    let _ = to.set_nodelay(true);
    for n in 0.. {
        let mut len = [0; 4];
        if from.read_exact(&mut len).is_err() {
            break;
        }
        let mut body = vec![0; u32::from_le_bytes(len) as usize];
        if from.read_exact(&mut body).is_err() {
            break;
        }
        if fault == Fault::Tamper(n) {
            let last = body.len() - 1;
            body[last / 2] ^= 0x10;
        }
        let times = if fault == Fault::Replay(n) { 2 } else { 1 };
        let frame = [&len[..], &body].concat();
        for _ in 0..times {
            if to.write_all(&frame).is_err() {
                return;
            }
        }
    }
    let _ = to.shutdown(std::net::Shutdown::Write);
}

/// Client frames of a keyed link: hello, handshake, Open, then one per batch.
const FIRST_BATCH: usize = 3;

/// A write posted and then flushed by a read, through a proxy doing `up`/`down`: the error the
/// client gets, and the word at the write's offset on the GPU afterwards.
fn faulted_write(up: Fault, down: Fault) -> (String, u32, Receiver<String>) {
    let gpu = shared_gpu();
    let k = key(3);
    let (addr, rx) = serve_with(Some(k.clone()), Some(gpu.clone()));
    let proxy = Proxy::new(addr, up, down);
    let pci = RemotePci::connect("127.0.0.1", proxy.addr.port(), DEVICE, Some(&k), WAIT).unwrap();
    pci.write32(AMD_BAR_VRAM, 0x100, 0xfeed_f00d).unwrap();
    let first = pci.read32(AMD_BAR_VRAM, 0x100);
    let second = pci.read32(AMD_BAR_VRAM, 0x100);
    let e = first.and(second).expect_err("the fault is refused").to_string();
    let word = gpu.read32(AMD_BAR_VRAM, 0x100).unwrap();
    (e, word, rx)
}

#[test]
fn a_tampered_request_is_refused_on_both_sides_and_runs_nothing() {
    let (e, word, rx) = faulted_write(Fault::Tamper(FIRST_BATCH), Fault::Pass);
    assert!(e.contains("failed authentication"), "{e}");
    assert_eq!(word, 0, "the tampered batch's write did not run");
    assert!(report(&rx).contains("failed authentication"));
}

#[test]
fn a_replayed_request_is_refused_on_both_sides() {
    let (e, word, rx) = faulted_write(Fault::Replay(FIRST_BATCH), Fault::Pass);
    assert!(e.contains("failed authentication"), "{e}");
    // The original ran once; its replay was refused.
    assert_eq!(word, 0xfeed_f00d);
    assert!(report(&rx).contains("failed authentication"));
}

#[test]
fn a_tampered_answer_is_refused_by_the_client() {
    // Server frames: hello verdict, handshake, Opened, then one per batch.
    let (e, _, _rx) = faulted_write(Fault::Pass, Fault::Tamper(FIRST_BATCH));
    assert!(e.contains("failed authentication"), "{e}");
}

#[test]
fn a_dropped_link_ends_every_call_with_an_error_naming_it_then_reopening_works() {
    let k = key(9);
    let (addr, rx) = serve(Some(k.clone()));
    let proxy = Proxy::new(addr, Fault::Pass, Fault::Pass);
    let pci = RemotePci::connect("127.0.0.1", proxy.addr.port(), DEVICE, Some(&k), WAIT).unwrap();
    let layout = Layout::for_arch("gfx1100").unwrap();
    let mut dev = AmDevice::open(pci.clone(), &StandinSource::for_layout(&layout)).unwrap();
    let a = dev.alloc(0x1000, true).unwrap();
    proxy.cut();
    let t = Instant::now();
    let link = format!("remote:127.0.0.1:{}", proxy.addr.port());
    let e = dev.read(&a, 0, &mut [0; 16]).unwrap_err().to_string();
    assert!(e.contains(&link), "{e}");
    // Every later call fails at once with the same cause, never a hang.
    for e in [pci.read32(AMD_BAR_VRAM, 0).unwrap_err(), pci.write32(AMD_BAR_VRAM, 0, 1).unwrap_err()] {
        assert!(e.to_string().contains(&link) && e.to_string().contains("link down"), "{e}");
    }
    assert!(t.elapsed() < WAIT, "{:?}", t.elapsed());
    assert!(report(&rx).contains("released am:emu:gfx1100"));
    drop(dev);
    // The server released the device: a new client boots it again.
    let pci = connect(addr, Some(&k)).unwrap();
    AmDevice::open(pci, &StandinSource::for_layout(&layout)).unwrap().close().unwrap();
}

/// The runtime over a keyed link: a launch whose result is checked element by element.
#[test]
fn a_launch_runs_over_a_keyed_loopback_link() {
    use baregpu::runtime::program::{ArgValue, CodeObject, Launch};
    let k = key(5);
    let (addr, _rx) = serve(Some(k.clone()));
    let pci = connect(addr, Some(&k)).unwrap();
    let fw = StandinSource::for_layout(&Layout::for_arch("gfx1100").unwrap());
    let dev = baregpu::device::open_am_over(pci, &fw, "remote test").unwrap();
    let path = format!("{}/tests/fixtures/hsaco/basic-{}.hsaco", env!("CARGO_MANIFEST_DIR"), dev.arch);
    let prog = dev.load(CodeObject::parse(&std::fs::read(path).unwrap()).unwrap()).unwrap();
    let n = 300usize;
    let bytes = |f: fn(usize) -> f32| (0..n).flat_map(|i| f(i).to_le_bytes()).collect::<Vec<u8>>();
    let (a, b, c) =
        (dev.alloc(4 * n as u64).unwrap(), dev.alloc(4 * n as u64).unwrap(), dev.alloc(4 * n as u64).unwrap());
    dev.write(&a, 0, &bytes(|i| i as f32)).unwrap();
    dev.write(&b, 0, &bytes(|i| 0.25 * i as f32)).unwrap();
    let args =
        [ArgValue::Pointer(a.va()), ArgValue::Pointer(b.va()), ArgValue::Pointer(c.va()), ArgValue::u32(n as u32)];
    let s = dev
        .launch(&prog, "vector_add", &args, &Launch::new([(n as u32).div_ceil(64), 1, 1], [64, 1, 1]), true)
        .unwrap();
    dev.synchronize().unwrap();
    let mut out = vec![0u8; 4 * n];
    dev.read(&c, 0, &mut out).unwrap();
    for (i, w) in out.chunks_exact(4).enumerate() {
        assert_eq!(f32::from_le_bytes(w.try_into().unwrap()), 1.25 * i as f32, "element {i}");
    }
    dev.release(s);
    for buf in [a, b, c] {
        dev.free(buf).unwrap();
    }
    dev.unload(prog).unwrap();
}

/// The demo through `remote:` (a matmul and a vector add as one graph, then a transformer block
/// compiled to a graph and replayed), each result checked against the host.
#[test]
fn the_demo_runs_as_graphs_and_a_replay_over_a_loopback_link() {
    let (addr, _rx) = serve(None);
    let spec = format!("remote:127.0.0.1:{}/{DEVICE}", addr.port()).parse().unwrap();
    let gpu = baregpu::open(&spec).unwrap();
    let r = baregpu::demo::run(&*gpu, 32, baregpu::demo::Mode::Graph, &mut |_| Ok(())).unwrap();
    assert!(r.runs.iter().all(|k| k.ok), "{:?}", r.runs);
    let t = r.transformer.expect("the transformer block ran");
    assert!(t.ok && t.replays > 0, "max error {}", t.max_error);
}

/// The runtime over a link that drops while a wait waits: the wait ends at once with an error
/// naming the link (the runtime latches the first failure), later calls fail the same way.
#[test]
fn a_wait_over_a_dropped_link_ends_with_an_error_naming_it() {
    let (addr, rx) = serve(None);
    let proxy = Proxy::new(addr, Fault::Pass, Fault::Pass);
    let pci = RemotePci::connect("127.0.0.1", proxy.addr.port(), DEVICE, None, WAIT).unwrap();
    let fw = StandinSource::for_layout(&Layout::for_arch("gfx1100").unwrap());
    let dev = baregpu::device::open_am_over(pci, &fw, "remote test").unwrap();
    // A gate the host never opens: only the link's failure can end the wait.
    let gate = dev.new_signal().unwrap();
    let done = dev.new_signal().unwrap();
    let mut q = dev.compute_queue().unwrap();
    q.wait(&gate, 1).signal(&done, 1);
    q.submit().unwrap();
    let t = Instant::now();
    let cutter = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        proxy.cut();
    });
    let e = dev.wait(&done, 1).unwrap_err().to_string();
    cutter.join().unwrap();
    assert!(e.contains("remote:127.0.0.1:") && e.contains("link"), "{e}");
    assert!(t.elapsed() < WAIT, "the wait took {:?}", t.elapsed());
    assert!(dev.synchronize().is_err());
    assert!(report(&rx).contains("released am:emu:gfx1100"));
    drop((gate, done));
}

/// A child process killed when dropped (a failing test leaves no server behind).
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `baregpu serve` as a child process on `listen`: the child and the address it printed.
fn serve_process(listen: &str) -> (Killed, SocketAddr) {
    use std::io::BufRead;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_baregpu"))
        .args(["serve", "--listen", listen, "--device", DEVICE])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let addr = line.split_whitespace().nth(3).and_then(|a| a.parse().ok());
    (Killed(child), addr.unwrap_or_else(|| panic!("no address in {line:?}")))
}

/// The server process killed under a booted driver: one error naming the link, every later call
/// fails at once; a server started again on the same port serves a new client.
#[test]
fn a_killed_server_is_an_error_naming_the_link_then_a_new_one_serves_again() {
    let (child, addr) = serve_process("127.0.0.1:0");
    let layout = Layout::for_arch("gfx1100").unwrap();
    let pci = connect(addr, None).unwrap();
    let mut dev = AmDevice::open(pci.clone(), &StandinSource::for_layout(&layout)).unwrap();
    let a = dev.alloc(0x1000, true).unwrap();
    drop(child);
    let t = Instant::now();
    let link = format!("remote:127.0.0.1:{}", addr.port());
    let e = dev.write(&a, 0, &[1; 64]).and_then(|()| dev.read(&a, 0, &mut [0; 64])).unwrap_err().to_string();
    assert!(e.contains(&link), "{e}");
    let e = pci.read32(AMD_BAR_VRAM, 0).unwrap_err().to_string();
    assert!(e.contains(&link) && e.contains("link down"), "{e}");
    assert!(t.elapsed() < WAIT, "{:?}", t.elapsed());
    drop(dev);
    let (_child, again) = serve_process(&addr.to_string());
    assert_eq!(again, addr);
    let pci = connect(addr, None).unwrap();
    AmDevice::open(pci, &StandinSource::for_layout(&layout)).unwrap().close().unwrap();
}

/// A graph replay costs one round trip whatever its node count: its command buffers were written
/// once, a replay's patches, ring words and doorbells are posted writes (the ring's read pointer
/// is read only when the ring runs full), and the wait runs on the server next to the device,
/// answered once the epoch signal arrives. More only where the GPU outlasts a wait slice.
#[test]
fn a_graph_replay_and_its_wait_cost_one_round_trip_for_one_node_or_sixteen() {
    use baregpu::runtime::graph::{Arg, Bindings, ExecOptions, FixedBuffer, GraphBuilder, GraphExec, Home};
    use baregpu::runtime::graph::{QueueKey, Shape};
    use baregpu::runtime::program::CodeObject;
    use baregpu::runtime::signal::LINK_WAIT_SLICE;
    let (addr, _rx) = serve(None);
    let pci = connect(addr, None).unwrap();
    let fw = StandinSource::for_layout(&Layout::for_arch("gfx1100").unwrap());
    let dev = baregpu::device::open_am_over(pci.clone(), &fw, "remote test").unwrap();
    let path = format!("{}/tests/fixtures/hsaco/graph-{}.hsaco", env!("CARGO_MANIFEST_DIR"), dev.arch);
    let prog = dev.load(CodeObject::parse(&std::fs::read(path).unwrap()).unwrap()).unwrap();
    // One workgroup a node: a 16-node replay finishes well within a wait slice on a loaded host.
    let n = 64u32;
    let bufs = [dev.alloc(4 * n as u64).unwrap(), dev.alloc(4 * n as u64).unwrap()];
    let fixed: Vec<FixedBuffer> =
        bufs.iter().map(|b| FixedBuffer { home: Home::Device(0), va: b.va(), bytes: b.size() }).collect();
    let per_replay = |nodes: usize| {
        let mut g = GraphBuilder::new();
        let k = g.scalar_slot("k", 4);
        for i in 0..nodes {
            let (d, s) = (fixed[(i + 1) % 2], fixed[i % 2]);
            let args = vec![Arg::buf_at(d, 0), Arg::buf_at(s, 0), Arg::u32(n), Arg::ScalarSlot(k)];
            g.launch(QueueKey::compute(0), &prog, "mix", args, Shape::linear(n / 64, 64));
        }
        let mut exec = GraphExec::compile(&g.build(), &[&dev], ExecOptions::default()).unwrap();
        let mut bind = Bindings::new();
        bind.scalar(k, &7u32.to_le_bytes());
        // The round trips of each run (the submission) and of each run and wait together, where
        // the replay finished within one wait slice.
        let (mut submits, mut in_time) = (Vec::new(), Vec::new());
        for _ in 0..8 {
            let (before, t) = (pci.round_trips(), Instant::now());
            exec.run(&bind).unwrap();
            submits.push(pci.round_trips() - before);
            exec.wait().unwrap();
            if t.elapsed() < LINK_WAIT_SLICE {
                in_time.push(pci.round_trips() - before);
            }
            // A second wait knows the run completed: no round trip.
            let again = pci.round_trips();
            exec.wait().unwrap();
            assert_eq!(pci.round_trips(), again, "{nodes} nodes: a second wait");
        }
        (submits, in_time)
    };
    for nodes in [1, 16] {
        let (submits, in_time) = per_replay(nodes);
        eprintln!("{nodes} nodes: round trips per submission {submits:?}, per replay and wait in time {in_time:?}");
        assert!(submits.iter().all(|&n| n == 0), "{nodes} nodes: a submission waited for answers: {submits:?}");
        assert!(!in_time.is_empty(), "no {nodes}-node replay finished within a wait slice ({LINK_WAIT_SLICE:?})");
        assert!(in_time.iter().all(|&n| n == 1), "{nodes} nodes: round trips per replay and wait {in_time:?}");
    }
    for b in bufs {
        dev.free(b).unwrap();
    }
    dev.unload(prog).unwrap();
}

/// A client of another protocol version (2: before waits ran on the server) is refused with one
/// line naming both versions, on both sides.
#[test]
fn a_client_of_another_protocol_version_is_refused_naming_both() {
    use baregpu::drivers::pci::remote::protocol::{Hello, VERSION};
    let (addr, rx) = serve(None);
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(WAIT)).unwrap();
    // A frame: its length (u32, little-endian), then the hello.
    let hello = Hello { version: VERSION - 1, keyed: false }.encode();
    s.write_all(&[&(hello.len() as u32).to_le_bytes()[..], &hello].concat()).unwrap();
    let mut len = [0; 4];
    s.read_exact(&mut len).unwrap();
    let mut frame = vec![0; u32::from_le_bytes(len) as usize];
    s.read_exact(&mut frame).unwrap();
    let want = format!("protocol version {} is not this server's ({VERSION})", VERSION - 1);
    assert_eq!((frame[0], String::from_utf8_lossy(&frame[1..]).to_string()), (1, want.clone()), "a refusal");
    let line = report(&rx);
    assert!(line.contains(&want), "{line}");
}
