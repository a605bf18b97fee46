#!/usr/bin/env node
// The virtual Pico's CPU side: an RP2040 (rp2040js) running the stock MicroPython UF2 from
// a flash image kept in a file. Driven by tools/vpico/pico.py over stdin/stdout, one line
// per message; the emulated clock stands still while this process waits for an answer.
//
//   node vpico.js --bootrom ROM --flash FILE [--uf2 UF2] [--xip-cache on|off] [--buzzer GPIO]
//                 [--timer-us US] [--flash-times typical|max]
//     FILE is created from UF2 when missing (else the Pico boots from the flash as it was).
//     --timer-us: the RP2040 timer's microsecond count at power-on (default 0): a Pico
//     powered for days (MicroPython's ticks_ms wraps at 2**30 ms, 12.4 days).
//     --xip-cache off: every flash read costs one cycle, as in plain rp2040js (default on:
//     the XIP cache model below charges each miss). --buzzer: the GPIO of the piezo
//     (boards/pico.py BUZZER), whose PWM slice's tone is reported. --flash-times max: each
//     erase and program takes the W25Q16JV datasheet's maximum instead of its typical time.
//     [--start-ns NS --watchdog REASON,S0,...,S7]: the chip after a watchdog reset (below).
//
// Host -> here:  run NS (execute until the emulated clock reaches NS) | in HEX (USB CDC
//   bytes from the host) | pin N 0|1 (drive a GPIO input) | irq LEVEL FALL_NS (the PN532
//   IRQ line now, and when it falls next, -1 = not scheduled) | cut NS SEED (the power
//   goes at emulated NS: an erase or program in flight then is left torn) | cut-op K FRAC
//   SEED [e|p] (the power goes FRAC of the way through the K-th flash erase or program from
//   now, K >= 1; e / p: counting erases / programs only) | cut-off (no cut armed) |
//   host-read 0|1 (the host, its port open, stops / starts reading the CDC data) | quit
// Here -> host:  R REASON S0,...,S7 NS (the watchdog reset the chip: this process ends;
//   the host starts the next one with --start-ns NS --watchdog REASON,S0,...) |
//   o HEX (CDC bytes from the Pico) | g N 0|1 (GP7 changed) | t HZ NS (the
//   buzzer's tone from NS on; 0: silent) | f e|p OFFS
//   COUNT NS AT (a flash erase/program, its emulated cost, when it started) | d NS IDLE_NS
//   MISSES STALL_NS (the run is done; IDLE_NS of it the CPU slept in WFI/WFE; XIP cache
//   misses since boot and the emulated time they cost) | c NS KIND OFFS COUNT DONE (the
//   power went at NS, the flash file is as it was then, and this process ends; KIND e|p|-
//   the operation torn, DONE bytes of its COUNT finished)
//   and requests answered at once, while the CPU waits:
//   b PIN LEVEL NS -> "SDA" (the firmware drives an I2C wire as a GPIO: SDA's level now) |
//   a ADDR MODE NS -> "n EXTRA IRQ FALL SDA" or "k EXTRA SYNC IRQ FALL SDA [HEX]" (address
//     phase; SDA: the wire's level once it is over (a target on a switch segment may grab
//     it then), set on the SDA pin; HEX previews a read's bytes) |
//   x ADDR NS N -> HEX (a longer read preview) |
//   w ADDR NS HEX / r ADDR NS COUNT (the transaction at its STOP) -> "IRQ FALL" when the
//     address phase said SYNC=1, no answer otherwise.
'use strict';
const fs = require('fs');
const { RP2040, USBCDC, GPIOPinState } = require('rp2040js');
const { decodeBlock } = require('uf2');

const FLASH_SIZE = 2 * 1024 * 1024;
const SECTOR = 4096;
const PAGE = 256;
// W25Q16JV datasheet (AC electrical characteristics): 4 KB sector erase tSE, 256-byte page
// program tPP, typical and maximum
const FLASH_TIMES = {
  typical: { erase: 45e6, program: 0.4e6 },
  max: { erase: 400e6, program: 3e6 },
};
const PN532_IRQ_PIN = 6;
const PN532_RESET_PIN = 7;
const SDA_PIN = 4;                // I2C0 (boards/pico.py SDA, SCL)
const SCL_PIN = 5;

// --- the XIP cache (RP2040 datasheet 2.6.3): 16 KB, 2-way set associative, 8-byte lines,
// in front of the QSPI flash at 0x10000000 (aliases: +0x1000000 no allocation on a miss,
// +0x2000000 / +0x3000000 bypass the cache). rp2040js alone charges one cycle for any
// flash read; a real miss waits for a QSPI transfer. boot2_w25q080 (PICO_FLASH_SPI_CLKDIV 2
// for the Pico and Pico W, kept by MicroPython's rp2_flash_set_timing at 125 MHz) runs SCK
// at clk_sys / 2 in quad I/O continuous-read mode (0xEB, mode bits 0xA0: no command byte per
// transfer). A line fill is 24 address + 8 mode bits over 4 lines (8 SCK), 4 dummy SCK and
// 64 data bits (16 SCK): 28 SCK = 56 clk_sys, plus chip-select and SSI FIFO turnaround,
// taken as 4 cycles: 60. An uncached 32-bit read moves 32 data bits: 8 + 4 + 8 =
// 20 SCK = 40 + 4 cycles. The SCK divider is the one the firmware set (SSI BAUDR: MicroPython
// sets it from clk_sys, 2 up to 266 MHz with this flash). Left out: the streaming FIFO and
// DMA from flash (unused here), the M0+'s prefetch overlapping a miss with execution, and
// bus contention with the USB/DMA.
const XIP_LINES = 16384 / 8;
const XIP_SETS = XIP_LINES / 2;
const MISS_SCK = 28;
const UNCACHED_SCK = 20;
const SSI_TURNAROUND_CYCLES = 4;
function sckDivider() {
  return ssi.baudr || 2;          // (0: boot2 has not set it yet)
}
const XIP_CTRL_FLUSH = 0x14000004;
const xipTag = new Int32Array(XIP_LINES).fill(-1);   // [set * 2 + way] = line >> 10
const xipLru = new Uint8Array(XIP_SETS);             // the way to replace next
let stallCycles = 0;
let xipMisses = 0;
let xipStallNs = 0;
// VPICO_XIP_PROFILE=FILE: the misses per 64 bytes of flash, written to FILE (little-endian
// u32s) every few seconds, for tools that map them to the firmware's symbols
const xipProfilePath = process.env.VPICO_XIP_PROFILE || '';
const xipProfile = xipProfilePath ? new Uint32Array((16 << 20) >>> 6) : null;
let xipProfileAt = Date.now();
function xipProfileSave(force) {
  if (!xipProfile || (!force && Date.now() - xipProfileAt < 5000)) return;
  xipProfileAt = Date.now();
  fs.writeFileSync(xipProfilePath, Buffer.from(xipProfile.buffer, 0, 4 << 15));
}
function xipRead(address, bytes) {
  const alias = (address >>> 24) & 3;
  if (alias >= 2) {               // the cache is not looked at
    const uncached = UNCACHED_SCK * sckDivider() + SSI_TURNAROUND_CYCLES;
    stallCycles += bytes > 4 ? 2 * uncached : uncached;
    xipMisses++;
    return;
  }
  const line = (address & 0xffffff) >>> 3;
  const set = line & (XIP_SETS - 1);
  const tag = line >>> 10;
  const i = set << 1;
  if (xipTag[i] === tag) { xipLru[set] = 1; return; }
  if (xipTag[i + 1] === tag) { xipLru[set] = 0; return; }
  stallCycles += MISS_SCK * sckDivider() + SSI_TURNAROUND_CYCLES;
  xipMisses++;
  if (xipProfile) xipProfile[(address & 0xffffff) >>> 6]++;
  if (alias === 0) {
    const way = xipLru[set];
    xipTag[i + way] = tag;
    xipLru[set] = way ^ 1;
  }
}
function xipFlush() {
  xipTag.fill(-1);
}

function parseArgs(argv) {
  const a = {};
  for (let i = 0; i < argv.length; i += 2) {
    if (!argv[i].startsWith('--') || i + 1 >= argv.length) {
      die('usage: vpico.js --bootrom ROM --flash FILE [--uf2 UF2]');
    }
    a[argv[i].slice(2)] = argv[i + 1];
  }
  if (!a.bootrom || !a.flash) die('usage: vpico.js --bootrom ROM --flash FILE [--uf2 UF2]');
  if (a['xip-cache'] === undefined) a['xip-cache'] = 'on';
  if (a['xip-cache'] !== 'on' && a['xip-cache'] !== 'off') die('--xip-cache takes on or off');
  a['timer-us'] = Number(a['timer-us'] || 0);
  if (!(a['timer-us'] >= 0 && a['timer-us'] < 2 ** 52)) die('--timer-us takes a count of us');
  if (a['flash-times'] === undefined) a['flash-times'] = 'typical';
  if (!FLASH_TIMES[a['flash-times']]) die('--flash-times takes typical or max');
  return a;
}

function die(msg) {
  fs.writeSync(2, 'vpico: ' + msg + '\n');
  process.exit(2);
}

// MicroPython reads the multicore FIFO (SIO 0x50 FIFO_ST, 0x54 FIFO_WR, 0x58 FIFO_RD) at
// every soft reset; core 1 is not emulated, and that is expected, not news for the user.
// Anything else rp2040js warns of is said once.
const FIFO_WARNING = /invalid SIO address: 5[048]\b/;
const warned = new Set();
console.warn = (msg) => {
  if (FIFO_WARNING.test(String(msg))) return;
  if (!warned.has(msg)) {
    warned.add(msg);
    fs.writeSync(2, 'vpico: rp2040js: ' + msg + ' (core 1 is not emulated)\n');
  }
};

// --- pipe to the host: synchronous, so the emulated clock stands still while waiting
let outBuf = '';
function send(line) {
  outBuf += line + '\n';
  if (outBuf.length > 16384) flush();
}
function flush() {
  if (outBuf) {
    fs.writeSync(1, outBuf);
    outBuf = '';
  }
}
const inChunk = Buffer.alloc(65536);
let inText = '';
function readLine() {
  for (;;) {
    const nl = inText.indexOf('\n');
    if (nl >= 0) {
      const line = inText.slice(0, nl);
      inText = inText.slice(nl + 1);
      return line;
    }
    let n;
    try {
      n = fs.readSync(0, inChunk, 0, inChunk.length, null);
    } catch (e) {
      if (e.code === 'EAGAIN') continue;
      if (e.code === 'EOF') n = 0;
      else throw e;
    }
    if (n === 0) process.exit(0);      // the host went away: the plug is pulled
    inText += inChunk.toString('latin1', 0, n);
  }
}
function ask(line) {
  send(line);
  flush();
  return readLine();
}

// --- the timer's count at power-on (--timer-us): rp2040js counts it from the emulated
// clock's 0; its reads (TIMEHR/TIMELR latched, TIMERAWH/TIMERAWL) and its alarms (ALARM0-3,
// the low 32 bits of a target time) are made to count from `fromUs` instead
function presetTimer(timer, fromUs) {
  if (!fromUs) return;
  const read = timer.readUint32.bind(timer);
  const write = timer.writeUint32.bind(timer);
  const now = () => timer.clock.nanos / 1000 + fromUs;
  timer.readUint32 = (offset) => {
    const time = now();
    switch (offset) {
      case 0x08: return timer.latchedTimeHigh;                           // TIMEHR
      case 0x0c: timer.latchedTimeHigh = Math.floor(time / 2 ** 32); return time >>> 0;
      case 0x24: return Math.floor(time / 2 ** 32);                     // TIMERAWH
      case 0x28: return time >>> 0;                                      // TIMERAWL
    }
    return read(offset);
  };
  timer.writeUint32 = (offset, value) => {
    if (offset >= 0x10 && offset <= 0x1c) {                             // ALARM0..3
      const alarm = timer.alarms[(offset - 0x10) / 4];
      alarm.armed = true;
      alarm.targetMicros = value;
      alarm.clockAlarm.schedule(((value - now()) >>> 0) * 1000);
      return;
    }
    write(offset, value);
  };
}

// --- the chip
const args = parseArgs(process.argv.slice(2));
const ERASE_NS = FLASH_TIMES[args['flash-times']].erase;
const PROGRAM_NS = FLASH_TIMES[args['flash-times']].program;
const mcu = new RP2040();
// A cycle's time follows clk_sys as the firmware sets it (the Pico W's UF2 runs at 200 MHz)
let cycleNs = 1e9 / mcu.clkSys;
mcu.addClockListener((hz) => { cycleNs = 1e9 / hz; });
const ssi = mcu.peripherals[0x18000];   // its BAUDR: sckDivider()
// rp2040js logs to stdout, which is the pipe: only errors, and to stderr
mcu.logger = {
  debug() {}, info() {}, warn() {},
  error(component, message) { fs.writeSync(2, 'vpico: ' + component + ': ' + message + '\n'); },
};
presetTimer(mcu.peripherals[0x40054], args['timer-us']);
mcu.loadBootrom(new Uint32Array(fs.readFileSync(args.bootrom).buffer.slice(0)));

let flashFd;
if (fs.existsSync(args.flash)) {
  const img = fs.readFileSync(args.flash);
  if (img.length !== FLASH_SIZE) die('flash image ' + args.flash + ' is not 2 MiB');
  mcu.flash.set(img);
  flashFd = fs.openSync(args.flash, 'r+');
} else {
  if (!args.uf2) die('no flash image and no --uf2 to make one');
  mcu.flash.fill(0xff, 0, FLASH_SIZE);
  const uf2 = fs.readFileSync(args.uf2);
  for (let off = 0; off + 512 <= uf2.length; off += 512) {
    const b = decodeBlock(new Uint8Array(uf2.buffer, uf2.byteOffset + off, 512));
    mcu.flash.set(b.payload, b.flashAddress - 0x10000000);
  }
  flashFd = fs.openSync(args.flash, 'w+');
  fs.writeSync(flashFd, mcu.flash, 0, FLASH_SIZE, 0);
}
mcu.core.PC = 0x10000000;        // boot2 at the start of flash, as the ROM would jump there

// --- the watchdog (RP2040 datasheet 4.7): rp2040js counts it down (CTRL, LOAD; 2 MHz, the
// RP2040-E1 double decrement the SDK allows for) and sets REASON (TIMER: it ran out; FORCE:
// CTRL.TRIGGER, machine.reset()), but resets nothing. Its reset (PSM WDSEL as the SDK sets
// it: everything but the oscillators) is a new chip here: this process says so and ends,
// and the host starts another from the same flash, the emulated clock going on, with what
// a watchdog reset keeps: the watchdog's REASON and SCRATCH0..7. The TIMER block restarts
// from 0 (it is reset too). VREG_AND_CHIP_RESET.CHIP_RESET reads HAD_POR: no chip-level
// reset came since power-on (the RUN pin and the debugger are not emulated). Its VREG register
// (2.10.7) keeps what the firmware writes (the Pico W's UF2 raises VSEL for 200 MHz), from
// its power-on value (EN, VSEL 1.10 V); ROK (the regulator's output in regulation) reads 1.
const watchdog = mcu.peripherals[0x40058];
const HAD_POR = 1 << 8;
const CHIP_RESET = 0x8;
const VREG = 0x0;
const VREG_ROK = 1 << 12;
{
  const chipReset = mcu.peripherals[0x40064];
  const read = chipReset.readUint32.bind(chipReset);
  const write = chipReset.writeUint32.bind(chipReset);
  let vreg = 0xb1;
  chipReset.readUint32 = (offset) => {
    if (offset === CHIP_RESET) return HAD_POR;
    if (offset === VREG) return vreg | VREG_ROK;
    return read(offset);
  };
  chipReset.writeUint32 = (offset, value) => {
    if (offset === VREG) vreg = value & 0xf3;
    else write(offset, value);
  };
}
if (args['start-ns'] !== undefined) {
  const startNs = parseInt(args['start-ns'], 10);
  const clock = mcu.clock;
  clock.nanosCounter = startNs;    // (nothing is scheduled yet)
  const timer = mcu.peripherals[0x40054];
  timer.clock = { get nanos() { return clock.nanos - startNs; } };   // its alarms: deltas
}
if (args.watchdog !== undefined) {
  const words = args.watchdog.split(',').map((w) => parseInt(w, 10) >>> 0);
  watchdog.reason = words[0];
  watchdog.scratchData.set(words.slice(1, 9));
}
watchdog.onWatchdogTrigger = () => {
  send('R ' + watchdog.reason + ' ' + Array.from(watchdog.scratchData).join(',') + ' ' +
       nowNs());
  xipProfileSave(true);
  pcProfileSave(true);
  flush();
  fs.closeSync(flashFd);
  process.exit(0);
};

if (args['xip-cache'] === 'on') {
  // every CPU read of the flash goes through the cache model (instruction fetches are
  // 16-bit reads in rp2040js, data loads of 8, 16 or 32 bits)
  const FLASH_START = 0x10000000;
  const FLASH_END = 0x14000000;
  // flash reads answered here (all four aliases): rp2040js's own readers fall back on one
  // another for the aliases, which would count a read twice
  const flash = mcu.flash;
  const view = mcu.flashView;
  const size = flash.length;
  const r8 = mcu.readUint8.bind(mcu);
  const r16 = mcu.readUint16.bind(mcu);
  const r32 = mcu.readUint32.bind(mcu);
  const w32 = mcu.writeUint32.bind(mcu);
  mcu.readUint8 = (a) => {
    if (a >= FLASH_START && a < FLASH_END && (a & 0xffffff) < size) {
      xipRead(a, 1);
      return flash[a & 0xffffff];
    }
    return r8(a);
  };
  mcu.readUint16 = (a) => {
    if (a >= FLASH_START && a < FLASH_END && (a & 0xffffff) + 1 < size) {
      xipRead(a, 2);
      return view.getUint16(a & 0xffffff, true);
    }
    return r16(a);
  };
  mcu.readUint32 = (a) => {
    const u = a >>> 0;
    if (u >= FLASH_START && u < FLASH_END && (u & 0xffffff) + 3 < size) {
      xipRead(u, 4);
      return view.getUint32(u & 0xffffff, true);
    }
    return r32(a);
  };
  mcu.writeUint32 = (a, v) => {
    if ((a >>> 0) === XIP_CTRL_FLUSH) xipFlush();
    w32(a, v);
  };
}

// ROM function table: 16-bit pointer at 0x14, entries (16-bit code, 16-bit address)
function romFunc(code) {
  const want = code.charCodeAt(0) | (code.charCodeAt(1) << 8);
  let p = mcu.readUint16(0x14);
  for (;;) {
    const c = mcu.readUint16(p);
    if (!c) die('ROM function ' + code + ' not found');
    if (c === want) return mcu.readUint16(p + 2) & ~1;
    p += 4;
  }
}
const ROM_ERASE = romFunc('RE');
const ROM_PROGRAM = romFunc('RP');

// --- power cuts. NOR flash (W25Q16JV): a program only clears bits and an erase sets a whole
// sector to FF; power lost part-way leaves a page with some bytes programmed and the rest as
// they were (a byte in the middle may have only some of its bits cleared), or a sector with
// some bytes already FF and the others as they were or half erased (bits set at random).
// Which bytes is seeded: the same cut gives the same flash.
let cutAt = -1;                  // emulated ns of the power cut, -1: none
let cutOps = 0;                  // > 0: the cut falls inside the cutOps-th operation from now
let cutFrac = 0;
let cutKind = '';                // 'e' / 'p': cutOps counts erases / programs only
let cutRng = 1;
function cutRand() {             // xorshift32 in [0, 1)
  let x = cutRng;
  x ^= x << 13; x >>>= 0;
  x ^= x >>> 17;
  x ^= x << 5; x >>>= 0;
  cutRng = x || 1;
  return cutRng / 4294967296;
}
function powerGone(kind, offs, count, done) {
  fs.closeSync(flashFd);
  send('c ' + nowNs() + ' ' + kind + ' ' + offs + ' ' + count + ' ' + done);
  flush();
  process.exit(0);
}
function tornErase(start, end, frac) {
  // whole sectors erased in order; the one in flight: a share `frac` of its bytes FF
  const sectors = (end - start) / SECTOR;
  const whole = Math.floor(frac * sectors);
  mcu.flash.fill(0xff, start, start + whole * SECTOR);
  const s = start + whole * SECTOR;
  const part = frac * sectors - whole;
  if (s < end) {
    for (let i = s; i < s + SECTOR; i++) {
      const u = cutRand();
      if (u < part) mcu.flash[i] = 0xff;
      else if (u < part + (1 - part) / 2) mcu.flash[i] |= Math.floor(cutRand() * 256);
    }
  }
  fs.writeSync(flashFd, mcu.flash, start, end - start, start);
  return whole * SECTOR;
}
function tornProgram(offs, data, n, frac) {
  // whole pages programmed in order; the one in flight: a share `frac` of its bytes, one
  // more with some of its bits only
  const pages = Math.ceil(n / PAGE);
  const whole = Math.min(n, Math.floor(frac * pages) * PAGE);
  for (let i = 0; i < whole; i++) mcu.flash[offs + i] &= mcu.readUint8(data + i);
  const end = Math.min(n, whole + PAGE);
  const part = frac * pages - Math.floor(frac * pages);
  let half = true;
  for (let i = whole; i < end; i++) {
    const v = mcu.readUint8(data + i);
    if (cutRand() < part) mcu.flash[offs + i] &= v;
    else if (half && v !== 0xff) {
      mcu.flash[offs + i] &= v | Math.floor(cutRand() * 256);
      half = false;
    }
  }
  fs.writeSync(flashFd, mcu.flash, offs, n, offs);
  return whole;
}

function flashOp() {
  const r = mcu.core.registers;
  const offs = r[0] >>> 0;
  const count = r[1] >>> 0;
  const erasing = mcu.core.PC === ROM_ERASE;
  if (cutOps > 0 && (!cutKind || cutKind === (erasing ? 'e' : 'p')) && --cutOps === 0) {
    const full = erasing
      ? (Math.ceil((offs + count) / SECTOR) - Math.floor(offs / SECTOR)) * ERASE_NS
      : Math.ceil((r[2] >>> 0) / PAGE) * PROGRAM_NS;
    cutAt = nowNs() + Math.floor(cutFrac * full);
  }
  let ns;
  if (erasing) {
    // flash_range_erase(addr, count, block_size, block_cmd): whole 4 KB sectors
    const start = offs - (offs % SECTOR);
    const end = Math.min(FLASH_SIZE, Math.ceil((offs + count) / SECTOR) * SECTOR);
    ns = ((end - start) / SECTOR) * ERASE_NS;
    if (cutAt >= 0 && nowNs() + ns > cutAt) {
      const frac = Math.max(0, (cutAt - nowNs()) / ns);
      powerGone('e', start, end - start, tornErase(start, end, frac));
    }
    mcu.flash.fill(0xff, start, end);
    fs.writeSync(flashFd, mcu.flash, start, end - start, start);
    send('f e ' + start + ' ' + (end - start) + ' ' + ns + ' ' + nowNs());
  } else {
    // flash_range_program(addr, data, count): NOR programming only clears bits
    const data = r[1] >>> 0;
    const n = r[2] >>> 0;
    ns = Math.ceil(n / PAGE) * PROGRAM_NS;
    if (cutAt >= 0 && nowNs() + ns > cutAt) {
      const frac = Math.max(0, (cutAt - nowNs()) / ns);
      powerGone('p', offs, n, tornProgram(offs, data, n, frac));
    }
    for (let i = 0; i < n; i++) mcu.flash[offs + i] &= mcu.readUint8(data + i);
    fs.writeSync(flashFd, mcu.flash, offs, n, offs);
    send('f p ' + offs + ' ' + n + ' ' + ns + ' ' + nowNs());
  }
  mcu.core.PC = mcu.core.LR & ~1;  // return to the caller (Thumb bit dropped from PC)
  xipFlush();                      // the SDK flushes the cache after every erase/program
  return ns;
}

// --- USB CDC: OUT reads are held until the host has data (a real host NAKs them)
const cdc = new USBCDC(mcu.usbCtrl);
const hostBytes = [];
let pendingRead = -1;
// A host that keeps the port open (DTR set) but does not read: it sends no IN token, so
// the Pico's IN transfer in flight never completes (its buffer is not handed back: the
// completion is held) and the data stays with the Pico until the host reads again; the
// firmware's CDC transmit buffer fills behind it (MicroPython then waits in its write).
let hostReading = true;
const heldData = [];
let heldDone = false;
const indicate = mcu.usbCtrl.indicateBufferReady.bind(mcu.usbCtrl);
mcu.usbCtrl.indicateBufferReady = (endpoint, out) => {
  if (!out && !hostReading && endpoint === cdc.inEndpoint && endpoint > 0) {
    heldDone = true;
    return;
  }
  indicate(endpoint, out);
};
function hostRead(on) {
  hostReading = on;
  if (!on) return;
  for (const buf of heldData.splice(0)) send('o ' + Buffer.from(buf).toString('hex'));
  if (heldDone) {
    heldDone = false;
    indicate(cdc.inEndpoint, false);
  }
}
cdc.onSerialData = (buf) => {
  if (!hostReading) heldData.push(Buffer.from(buf));
  else send('o ' + Buffer.from(buf).toString('hex'));
};
mcu.usbCtrl.onEndpointRead = (endpoint, size) => {
  if (endpoint !== cdc.outEndpoint) return;
  pendingRead = size;
  feedUsb();
};
function feedUsb() {
  if (pendingRead < 0 || !hostBytes.length) return;
  const n = Math.min(pendingRead, hostBytes.length);
  const buf = new Uint8Array(hostBytes.splice(0, n));
  pendingRead = -1;
  mcu.usbCtrl.endpointReadDone(cdc.outEndpoint, buf);
}

// --- GPIO: inputs driven by the host; GP7 (PN532 RSTPDN) reported
const irqAlarm = mcu.clock.createAlarm(() => mcu.gpio[PN532_IRQ_PIN].setInputValue(false));
function setIrq(level, fall) {
  mcu.gpio[PN532_IRQ_PIN].setInputValue(level !== 0);
  irqAlarm.cancel();
  if (fall >= 0) irqAlarm.schedule(Math.max(0, fall - mcu.clock.nanos));
}
for (let p = 10; p <= 17; p++) mcu.gpio[p].setInputValue(true);   // buttons released
mcu.gpio[PN532_IRQ_PIN].setInputValue(true);
// --- the I2C wires as GPIOs (the bus clear): SDA and SCL idle high (the pull-ups); while
// the firmware drives them itself (SIO, open drain: low, or let go = high), each change is
// asked of the host, whose bus model answers with SDA's level (a target may hold it low),
// set on the pin at once. The host sets SDA low itself when a target grabs it (pin 4 0).
mcu.gpio[SDA_PIN].setInputValue(true);
mcu.gpio[SCL_PIN].setInputValue(true);
for (const p of [SDA_PIN, SCL_PIN]) {
  let last = 1;
  mcu.gpio[p].addListener((state) => {
    const v = state === GPIOPinState.Low ? 0 : 1;
    if (v === last) return;
    last = v;
    const sda = parseInt(ask('b ' + p + ' ' + v + ' ' + Math.round(mcu.clock.nanos)), 10);
    mcu.gpio[SDA_PIN].setInputValue(sda !== 0);
    mcu.gpio[SCL_PIN].setInputValue(p === SCL_PIN ? v !== 0 : mcu.gpio[SCL_PIN].rawInputValue);
  });
}
let resetLevel = -1;
mcu.gpio[PN532_RESET_PIN].addListener((state) => {
  const v = state === GPIOPinState.High ? 1 : state === GPIOPinState.Low ? 0 : -1;
  if (v >= 0 && v !== resetLevel) {
    resetLevel = v;
    send('g ' + PN532_RESET_PIN + ' ' + v + ' ' + Math.round(mcu.clock.nanos));
  }
});

// --- the buzzer: rp2040js emulates the PWM slices (their counters drive the pin); the tone
// on the buzzer's pin is worked out from its slice's registers at each write (enable, the
// channel's compare level, TOP, the divider, phase-correct halving) and reported when it
// changes. A level of 0 or above TOP holds the pin still: silent.
if (args.buzzer !== undefined) {
  const pin = parseInt(args.buzzer, 10);
  const ch = mcu.pwm.channels[(pin >> 1) & 7];
  const write = ch.writeRegister.bind(ch);
  let lastHz = 0;
  ch.writeRegister = (offset, value) => {
    write(offset, value);
    const level = pin & 1 ? ch.cc >>> 16 : ch.cc & 0xffff;
    const div = (((ch.div >> 4) & 0xff) || 256) + (ch.div & 0xf) / 16;
    const on = (ch.csr & 1) && level > 0 && level <= ch.top;
    const hz = on ? Math.round(mcu.clkSys / (div * (ch.top + 1) * (ch.csr & 2 ? 2 : 1))) : 0;
    if (hz !== lastHz) {
      lastHz = hz;
      send('t ' + hz + ' ' + nowNs());
    }
  };
}

// --- I2C0: each transaction's address phase asks the host; data bytes are acked here and
// the whole transaction goes to the host at its STOP. Bus time: 9 SCL periods a byte plus
// one each for start and stop, at the rate the firmware programmed.
const i2c = mcu.i2c[0];
// RP2040 datasheet 4.3.11.2 (DW_apb_i2c): after a transmit abort (a NACKed address) the TX
// FIFO is flushed, so empty (TX_EMPTY: the pico-sdk waits for it, then reads the abort), and
// stays flushed until TX_ABRT is cleared. rp2040js raised no TX_EMPTY (each NACKed write
// then took the SDK's whole timeout) and kept a byte written meanwhile, which went out
// first in the next transfer (a stray 00 before a frame)
const IC_DATA_CMD = 0x10;
const R_TX_ABRT = 1 << 6;
const R_TX_EMPTY = 1 << 4;
const i2cAbort = i2c.abort.bind(i2c);
i2c.abort = (reason) => {
  i2cAbort(reason);
  i2c.setInterrupts(R_TX_EMPTY);
};
const i2cWrite = i2c.writeUint32.bind(i2c);
i2c.writeUint32 = (offset, value) => {
  if (offset === IC_DATA_CMD && (i2c.intRaw & R_TX_ABRT)) return;
  i2cWrite(offset, value);
};
function sclPeriodNs() {
  const hl = i2c.sclHighPeriod + i2c.sclLowPeriod;
  return (hl * 1e9) / mcu.clkSys;
}
function later(ns, fn) {
  const alarm = mcu.clock.createAlarm(fn);
  alarm.schedule(Math.max(0, Math.round(ns)));
}
let txn = null;                   // {addr, read, sync, data[], preview, count}
function nowNs() {
  return Math.round(mcu.clock.nanos);
}
function parseIrq(parts, at) {
  setIrq(parseInt(parts[at], 10), parseInt(parts[at + 1], 10));
}
function commit() {
  if (!txn) return;
  const t = txn;
  txn = null;
  const line = t.read
    ? 'r ' + t.addr + ' ' + nowNs() + ' ' + t.count
    : 'w ' + t.addr + ' ' + nowNs() + ' ' + Buffer.from(t.data).toString('hex');
  if (t.sync) parseIrq(ask(line).split(' '), 0);
  else send(line);
}
i2c.onStart = () => {
  commit();                       // a repeated start ends the previous transfer
  later(sclPeriodNs(), () => i2c.completeStart());
};
i2c.onConnect = (addr, mode) => {
  const read = mode === 1;
  const parts = ask('a ' + addr + ' ' + (read ? 'r' : 'w') + ' ' + nowNs()).split(' ');
  const extra = parseInt(parts[1], 10);
  if (parts[0] === 'n') {
    parseIrq(parts, 2);
    mcu.gpio[SDA_PIN].setInputValue(parts[4] !== '0');   // what SIO GPIO_IN reads of it
    later(9 * sclPeriodNs() + extra, () => i2c.completeConnect(false));
    return;
  }
  txn = { addr, read, sync: parts[2] === '1', data: [], count: 0,
          preview: parts[6] ? Buffer.from(parts[6], 'hex') : Buffer.alloc(0) };
  parseIrq(parts, 3);
  mcu.gpio[SDA_PIN].setInputValue(parts[5] !== '0');
  later(9 * sclPeriodNs() + extra, () => i2c.completeConnect(true));
};
i2c.onWriteByte = (v) => {
  txn.data.push(v);
  later(9 * sclPeriodNs(), () => i2c.completeWrite(true));
};
i2c.onReadByte = () => {
  const t = txn;
  if (t.count >= t.preview.length) {
    const more = ask('x ' + t.addr + ' ' + nowNs() + ' ' + Math.max(64, 2 * t.count));
    t.preview = Buffer.from(more, 'hex');
  }
  const v = t.preview[t.count++];
  later(9 * sclPeriodNs(), () => i2c.completeRead(v));
};
i2c.onStop = () => {
  commit();
  later(sclPeriodNs(), () => i2c.completeStop());
};

// VPICO_PC_PROFILE=FILE: the cycles spent at each instruction word (PC / 4, XIP stalls
// included) of flash and of SRAM, two little-endian uint32 arrays one after the other,
// written to FILE every 5 s of wall time and at the end (tools/cycle_profile.py maps them
// to the firmware's functions)
const pcProfilePath = process.env.VPICO_PC_PROFILE || '';
const pcFlash = pcProfilePath ? new Uint32Array((2 << 20) >>> 2) : null;
const pcSram = pcProfilePath ? new Uint32Array((264 << 10) >>> 2) : null;
let pcProfileAt = Date.now();
function pcProfileSave(force) {
  if (!pcFlash || (!force && Date.now() - pcProfileAt < 5000)) return;
  pcProfileAt = Date.now();
  fs.writeFileSync(pcProfilePath, Buffer.concat([Buffer.from(pcFlash.buffer),
    Buffer.from(pcSram.buffer)]));
}

// --- the run loop
function run(until) {
  const core = mcu.core;
  const clock = mcu.clock;
  let idle = 0;
  if (cutAt >= 0 && until > cutAt) until = cutAt;   // (then the power goes, below)
  while (clock.nanos < until) {
    if (core.waiting) {
      const toAlarm = clock.nanosToNextAlarm;
      const left = until - clock.nanos;
      const dt = toAlarm > 0 && toAlarm < left ? toAlarm : left;
      idle += dt;
      clock.tick(dt);
      continue;
    }
    const pc = core.PC;
    if (pc === ROM_ERASE || pc === ROM_PROGRAM) {
      clock.tick(flashOp());
      continue;
    }
    stallCycles = 0;
    const cycles = core.executeInstruction();
    if (pcFlash) {
      const a = pc - 0x10000000;
      if (a >= 0 && a < (2 << 20)) pcFlash[a >>> 2] += cycles + stallCycles;
      else if (pc >= 0x20000000 && pc < 0x20042000) {
        pcSram[(pc - 0x20000000) >>> 2] += cycles + stallCycles;
      }
    }
    if (stallCycles) {
      xipStallNs += stallCycles * cycleNs;
      clock.tick((cycles + stallCycles) * cycleNs);
    } else {
      clock.tick(cycles * cycleNs);
    }
  }
  if (cutAt >= 0 && clock.nanos >= cutAt) powerGone('-', 0, 0, 0);
  send('d ' + nowNs() + ' ' + Math.round(idle) + ' ' + xipMisses + ' ' + Math.round(xipStallNs));
  flush();
  xipProfileSave(false);
  pcProfileSave(false);
}

for (;;) {
  const line = readLine();
  const parts = line.split(' ');
  switch (parts[0]) {
    case 'run':
      run(parseInt(parts[1], 10));
      break;
    case 'in':
      for (const b of Buffer.from(parts[1] || '', 'hex')) hostBytes.push(b);
      feedUsb();
      break;
    case 'pin':
      mcu.gpio[parseInt(parts[1], 10)].setInputValue(parts[2] === '1');
      break;
    case 'irq':
      parseIrq(parts, 1);
      break;
    case 'cut':
      cutAt = parseInt(parts[1], 10);
      cutRng = (parseInt(parts[2], 10) * 2654435761 + 1) >>> 0 || 1;
      break;
    case 'cut-op':
      cutOps = parseInt(parts[1], 10);
      cutFrac = parseFloat(parts[2]);
      cutRng = (parseInt(parts[3], 10) * 2654435761 + 1) >>> 0 || 1;
      cutKind = parts[4] || '';
      break;
    case 'host-read':
      hostRead(parts[1] === '1');
      break;
    case 'cut-off':
      cutAt = -1;
      cutOps = 0;
      break;
    case 'quit':
      xipProfileSave(true);
      pcProfileSave(true);
      flush();
      fs.closeSync(flashFd);
      process.exit(0);
      break;
    default:
      die('unknown command: ' + line.slice(0, 40));
  }
}
