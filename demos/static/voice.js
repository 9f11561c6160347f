// realtime-venus: the page's voice. Loaded in the page's <head> (demos.ui).
//
// One audio socket per tab (demos/wire.py), opened as soon as the voice panel carries its
// token: the reply's audio arrives a little ahead of the session's clock and is played on
// the session's time (plus a small playout delay), a "cut" drops what is held from a time
// on at once (a barge-in silences the page when the server decides it), and the
// microphone (the #venus-talk button) goes the other way in 20 ms frames stamped with
// their age. #venus-agent-state shows listening / thinking / speaking from what this page
// itself plays (its data-state attribute is what tests and benchmarks read).
(() => {
  const RATE = 16000;           // the session's audio rate, both ways
  const PLAYOUT_DELAY = 0.05;   // seconds the page plays behind the session's clock
  const HANGOVER = 0.25;        // silence inside a reply shorter than this is still speaking
  const THINKING_MAX = 10;      // a reply announced but never heard stops "thinking"
  const VOICE_RMS = 0.02;       // a microphone frame this loud carries the user's voice
  const QUIET_S = 0.3;          // ... and this long without one ends it (the log only)
  const WORKLET = `
    class VenusMic extends AudioWorkletProcessor {
      constructor() { super(); this.buf = new Float32Array(320); this.n = 0; }
      process(inputs) {
        const ch = inputs[0] && inputs[0][0];
        if (ch) {
          for (let i = 0; i < ch.length; i++) {
            this.buf[this.n++] = ch[i];
            if (this.n === this.buf.length) {
              this.port.postMessage({pcm: this.buf.slice(0), t: currentTime + (i + 1) / sampleRate});
              this.n = 0;
            }
          }
        }
        return true;
      }
    }
    registerProcessor('venus-mic', VenusMic);`;

  const v = window.venusVoice = {
    ctx: null, ws: null, token: null, epoch: -1, offset: null, sources: [],
    thinking: null, lastSound: -1, cutEnd: null, state: 'listening', mic: null, log: [],
    framesIn: 0, framesOut: 0, cuts: 0, delay: PLAYOUT_DELAY,
  };

  function context() {
    if (!v.ctx) {
      v.ctx = new AudioContext({sampleRate: RATE, latencyHint: 'interactive'});
      v.out = v.ctx.createGain();
      v.out.connect(v.ctx.destination);
    }
    if (v.ctx.state === 'suspended') v.ctx.resume().catch(() => {});
    return v.ctx;
  }
  // Browsers start audio only after a gesture: any click or key on the page unlocks it.
  for (const type of ['click', 'keydown', 'touchstart']) {
    document.addEventListener(type, () => { if (v.ctx) context(); }, true);
  }

  function stateElement() { return document.querySelector('#venus-agent-state'); }

  function setState(state) {
    if (state === v.state) return;
    v.state = state;
    v.log.push({state, t: performance.now()});
    if (v.log.length > 500) v.log.shift();
    const el = stateElement();
    if (el) { el.dataset.state = state; el.textContent = state; }
    report();
  }

  function tick() {
    const el = stateElement();
    if (el && !v.token && el.dataset.link) connect(el.dataset.link);
    if (el && el.dataset.state !== v.state) { el.dataset.state = v.state; el.textContent = v.state; }
    if (!v.ctx) return;
    const now = v.ctx.currentTime;
    v.sources = v.sources.filter((s) => s.t1 > now - 1);
    if (v.sources.some((s) => s.t0 <= now && now < s.t1)) v.lastSound = now;
    // The hangover bridges the pauses inside a reply; a reply cut (stopped, paused) is
    // silent once its last held sound has played: no hangover after that.
    const cut = v.cutEnd !== null && now >= v.cutEnd && v.lastSound < v.cutEnd;
    const speaking = v.lastSound >= 0 && now - v.lastSound < HANGOVER && !cut;
    if (speaking) v.thinking = null;
    if (v.thinking !== null && performance.now() - v.thinking > THINKING_MAX * 1000) v.thinking = null;
    setState(speaking ? 'speaking' : (v.thinking !== null ? 'thinking' : 'listening'));
    if (speaking && Math.random() < 0.25) report();
  }
  setInterval(tick, 25);

  function report() {
    if (!v.ws || v.ws.readyState !== 1 || !v.ctx || v.offset === null) return;
    const lag = PLAYOUT_DELAY + (v.ctx.outputLatency || 0) + (v.ctx.baseLatency || 0);
    v.ws.send(JSON.stringify({op: 'played', at: v.ctx.currentTime - v.offset - PLAYOUT_DELAY,
                              lag, state: v.state}));
  }

  function connect(token) {
    v.token = token;
    const url = new URL('venus/audio', window.location.href.replace(/[?#].*$/, '').replace(/[^/]*$/, ''));
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    url.searchParams.set('token', token);
    const ws = v.ws = new WebSocket(url);
    ws.binaryType = 'arraybuffer';
    ws.onmessage = (event) => {
      if (typeof event.data === 'string') control(JSON.parse(event.data));
      else play(event.data);
    };
    ws.onclose = () => {
      if (v.ws !== ws) return;
      v.ws = null;
      setTimeout(() => { v.token = null; }, 1000);  // tick() reconnects while the page lives
    };
    context();
  }

  function control(m) {
    if (m.op !== 'hello') v.log.push({state: 'op:' + m.op, t: performance.now()});
    if (m.op === 'hello') {
      if (m.epoch !== v.epoch) { drop(-Infinity); v.sources = []; v.offset = null; v.epoch = m.epoch; }
    } else if (m.op === 'cut') {
      anchor(m.now);
      drop(m.at);
      v.cuts += 1;
    } else if (m.op === 'queued') {
      v.thinking = performance.now();
    } else if (m.op === 'stopped') {
      v.thinking = null;
    }
  }

  function anchor(now) {
    // The lowest (ctx time - session time) seen is the least-delayed reading of the offset.
    const estimate = context().currentTime - now;
    if (v.offset === null || estimate < v.offset - 0.002) v.offset = estimate;
  }

  // A frame plays at its session time (plus the playout delay); one that follows on from
  // the frame before it plays right after it (no gap, no overlap), and one that comes
  // late plays at once, whole: the first syllable of a reply is never clipped.
  function play(buffer) {
    const view = new DataView(buffer);
    if (view.getUint8(0) !== 65) return;  // 'A'
    const start = view.getFloat64(8, true), now = view.getFloat64(16, true);
    const pcm = new Int16Array(buffer, 24);
    if (!pcm.length) return;
    const ctx = context();
    anchor(now);
    let t0 = start + v.offset + PLAYOUT_DELAY;
    const prev = v.sources.length ? v.sources[v.sources.length - 1] : null;
    if (prev && Math.abs(prev.s1 - start) < 0.002 && prev.t1 > ctx.currentTime) t0 = prev.t1;
    t0 = Math.max(t0, ctx.currentTime);
    const audio = ctx.createBuffer(1, pcm.length, RATE);
    const data = audio.getChannelData(0);
    for (let i = 0; i < pcm.length; i++) data[i] = pcm[i] / 32768;
    const src = ctx.createBufferSource();
    src.buffer = audio;
    src.connect(v.out);
    src.start(t0);
    v.sources.push({src, t0, t1: t0 + audio.duration, s0: start, s1: start + audio.duration});
    v.framesIn += 1;
  }

  // Drop everything held from session time `at` on (at once where it already plays).
  function drop(at) {
    const now = v.ctx ? v.ctx.currentTime : 0;
    let silent = true;
    for (const s of v.sources) {
      const cut = s.t0 + (at - s.s0);  // where `at` falls in this frame's own schedule
      // never to play: empty at `now` (not at its own start, which may lie ahead and would
      // keep the page "speaking" through a silence the listener already hears)
      if (at <= s.s0) { try { s.src.stop(); } catch (e) {} s.t0 = s.t1 = Math.min(s.t0, now); }
      else if (at < s.s1) {
        const when = Math.max(cut, now);
        try { s.src.stop(when); } catch (e) {}
        s.t1 = when; s.s1 = at;
      }
      if (s.t1 > now) silent = false;
    }
    v.cutEnd = Math.max(now, ...v.sources.map((s) => s.t1));  // the cut's silence begins
    if (silent) v.lastSound = -1;  // nothing plays from now on: no hangover
  }

  async function startMic() {
    const ctx = context();
    const stream = await navigator.mediaDevices.getUserMedia({audio: {
      echoCancellation: true, noiseSuppression: true, autoGainControl: true, channelCount: 1}});
    if (!v.workletReady) {
      const url = URL.createObjectURL(new Blob([WORKLET], {type: 'application/javascript'}));
      await ctx.audioWorklet.addModule(url);
      v.workletReady = true;
    }
    const source = ctx.createMediaStreamSource(stream);
    const node = new AudioWorkletNode(ctx, 'venus-mic');
    const mute = ctx.createGain();
    mute.gain.value = 0;
    source.connect(node); node.connect(mute); mute.connect(ctx.destination);
    node.onprocessorerror = (event) => { v.micError = String(event.message || event); };
    if (window.venusEcho) {  // benchmarks: the page's own voice back into its microphone
      v.echo = ctx.createGain();
      v.echo.gain.value = window.venusEcho;
      v.out.connect(v.echo); v.echo.connect(node);
    }
    node.port.onmessage = (event) => {
      const {pcm, t} = event.data;
      hear(pcm, t);
      if (!v.ws || v.ws.readyState !== 1) return;
      const frame = new ArrayBuffer(16 + 2 * pcm.length);
      const view = new DataView(frame);
      view.setUint8(0, 77);  // 'M', 3 bytes of padding, the rate, the age, the PCM
      view.setUint32(4, ctx.sampleRate, true);
      view.setFloat64(8, Math.max(0, ctx.currentTime - t), true);
      const out = new Int16Array(frame, 16);
      for (let i = 0; i < pcm.length; i++) out[i] = Math.max(-32768, Math.min(32767, pcm[i] * 32767));
      v.ws.send(frame);
      v.framesOut += 1;
    };
    v.mic = {stream, source, node, mute, startedAt: performance.now()};
    v.log.push({state: 'mic-on', t: v.mic.startedAt});
  }

  // The user's voice as the page captured it: 'user-voice' when a frame is loud, and
  // 'user-quiet' (stamped with the last loud frame) once it has been quiet for a while.
  function hear(pcm, t) {
    let energy = 0;
    for (let i = 0; i < pcm.length; i++) energy += pcm[i] * pcm[i];
    const loud = Math.sqrt(energy / pcm.length) > VOICE_RMS;
    const at = performance.now() - 1000 * Math.max(0, v.ctx.currentTime - t);
    if (loud) {
      if (!v.voiced) v.log.push({state: 'user-voice', t: at - 1000 * pcm.length / RATE});
      v.voiced = true;
      v.lastVoice = at;
    } else if (v.voiced && at - v.lastVoice > 1000 * QUIET_S) {
      v.voiced = false;
      v.log.push({state: 'user-quiet', t: v.lastVoice});
    }
  }

  function stopMic() {
    if (!v.mic) return;
    v.mic.stream.getTracks().forEach((track) => track.stop());
    v.mic.source.disconnect(); v.mic.node.disconnect(); v.mic.mute.disconnect();
    if (v.echo) { v.echo.disconnect(); v.echo = null; }
    v.mic = null;
  }

  document.addEventListener('click', async (event) => {
    const button = event.target.closest('#venus-talk');
    if (!button) return;
    event.preventDefault();
    if (v.mic) {
      stopMic();
    } else {
      try { await startMic(); } catch (error) {
        button.title = 'The microphone could not start: ' + error.message;
        button.dataset.error = error.name || 'error';
      }
    }
    button.dataset.on = v.mic ? 'true' : 'false';
    button.textContent = v.mic ? '■ Stop talking' : '🎙 Talk';
  }, true);
})();
