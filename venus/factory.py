"""`venus.assistant`: the one place the assistant is assembled.

Composition above `venus.runtime` (and below everything that runs an assistant: the
scenario runner, the evaluation runner, the CLI, the demo app and the notebooks). It
builds the speech output, the user's perception, the duplex I/O, the frontend (the
embedded policy unless one is given) and the session with its harness, from a memory, a
mode and a clock. `AssistantModels` carries the embedded models so repeated assistants in
one process load them once (`shared_models`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import cache
from os import PathLike
from typing import Any

from venus.capabilities import builtin_capabilities
from venus.clock import Clock, WallClock
from venus.errors import ConfigError
from venus.frontend.base import Frontend
from venus.frontend.embedded import EmbeddedFrontend, EmbeddedOptions
from venus.harness import Capability, MemoryView
from venus.perception import PerceptionConfig, UserPerception
from venus.runtime import DuplexIO, DuplexOptions, Session, SessionOptions
from venus.speech import AudioSpeechOutput, SpeechOutput, SpeechOutputOptions
from venus.speech.synthesis import SYNTHESIS_S_PER_WORD, AssistantVoice, choose_voice
from venus.timeline import Timeline

__all__ = ["AssistantModels", "AssistantOptions", "assistant", "shared_models"]

_MODES = ("omni", "audio")


@dataclass
class AssistantModels:
    """The embedded models an assistant needs, loaded on first use and then reused:
    ``voice`` (the assistant's own: Piper when the ``voices`` extra is installed, else
    eSpeak NG; a `venus.speech.synthesis.AssistantVoice`), ``tts`` (eSpeak NG, the engine
    simulated users speak with), ``detector`` (Silero VAD), ``transcriber`` (the live
    user's greedy Whisper), ``embedder`` (MiniLM), ``probe`` (the fast first-words reader,
    the same Whisper with a short audio context; loaded with the session, not on its
    first overlap). Pass your
    own in ``_cache`` by name (``"voice"``, ``"tts"``, ``"vad"``, ``"asr"``,
    ``"embedder"``, ``"probe"``) to swap one."""

    _cache: dict[str, Any] = field(default_factory=dict)

    def _get(self, name: str, make) -> Any:
        if name not in self._cache:
            self._cache[name] = make()
        return self._cache[name]

    def with_voice(self, voice: AssistantVoice) -> AssistantModels:
        """These models, shared (what one loads the other has), speaking with ``voice``."""
        return _VoicedModels(self, voice)

    @property
    def voice(self) -> AssistantVoice:
        return self._get("voice", choose_voice)

    @property
    def tts(self):
        from memory.models import EspeakSynthesizer
        return self._get("tts", EspeakSynthesizer)

    @property
    def detector(self):
        from memory.models import SileroSpeechDetector
        return self._get("vad", SileroSpeechDetector)

    @property
    def transcriber(self):
        from venus.perception.transcription import user_transcriber
        return self._get("asr", user_transcriber)

    @property
    def embedder(self):
        from memory.models import MiniLMEmbedder
        return self._get("embedder", MiniLMEmbedder)

    @property
    def end_of_turn(self):
        """Smart Turn v3.2 when ``scripts/setup.sh`` has taken its file from the pipecat-ai
        wheel, else None (every offset then ends the turn; ``venus doctor`` says which)."""
        from venus.perception.turn import SmartTurn, turn_model_path

        return self._get("end_of_turn", lambda: SmartTurn() if turn_model_path().exists()
                         else None)

    @property
    def probe(self):
        from venus.perception.probe import WhisperProbe
        return self._get("probe", WhisperProbe)

    def warm_up(self, *, perceive: bool = True) -> None:
        """Load the voice (and, with ``perceive``, every model that listens) and run each
        once on a short input, so a live session's first reply and first overlap do not
        wait for a model to load (`venus app` does this on start-up)."""
        import numpy as np

        self.voice.synthesizer.synthesize("Ready.")
        if perceive:
            quiet = np.zeros(16_000, np.float32)
            self.detector, self.embedder  # noqa: B018 (loads them)
            if self.end_of_turn is not None:
                self.end_of_turn.predict(quiet)
            self.transcriber.transcribe(quiet)
            self.probe.transcribe(quiet)


class _VoicedModels(AssistantModels):
    def __init__(self, base: AssistantModels, voice: AssistantVoice) -> None:
        super().__init__(base._cache)
        self._voice = voice

    @property
    def voice(self) -> AssistantVoice:
        return self._voice


@cache
def shared_models() -> AssistantModels:
    """One `AssistantModels` per process."""
    return AssistantModels()


@dataclass(frozen=True)
class AssistantOptions:
    """Everything else an assistant can be told, all optional.

    ``perception``: names and thresholds of the user's perception (its ``deterministic``
    flag always follows the clock: simulated time waits for due words, a wall clock
    never does); ``voice``: the assistant's TTS voice, rate and pitch; ``embedded``:
    options of the embedded frontend (when no ``frontend`` is given); ``duplex``: echo
    and gate; ``session``: pacing and the drain after the source ends; ``perceive``:
    listen to the user (False for a frontend that takes only typed or scripted input:
    no VAD or Whisper is loaded, and there is no overlap gate).
    """

    perception: PerceptionConfig | None = None
    voice: SpeechOutputOptions | None = None
    embedded: EmbeddedOptions | None = None
    duplex: DuplexOptions | None = None
    session: SessionOptions = field(default_factory=SessionOptions)
    perceive: bool = True


def assistant(memory: MemoryView | None = None, *, mode: str = "omni",
              clock: Clock | None = None, frontend: Frontend | None = None,
              speech: SpeechOutput | None = None,
              capabilities: Iterable[Capability] | None = None,
              timeline: Timeline | str | PathLike | None = None, session_id: str = "session",
              options: AssistantOptions | None = None,
              models: AssistantModels | None = None) -> Session:
    """A ready assistant: a `venus.runtime.Session` (a context manager) to run on a source.

    * ``memory``: what it answers from, any `venus.harness.MemoryView`
      (``memory.VideoMemory``, ``memory.NotesMemory``); None: it says it has no memory.
    * ``mode``: "omni" (audio + frames, the face cue) or "audio" (the Audio frontend).
    * ``clock``: `venus.SimulatedClock` (fast, deterministic) or `venus.WallClock`
      (live; the default).
    * ``frontend``: another policy (a `venus.frontend.transformers.TransformersFrontend`,
      an OpenAI-compatible one, your own); default the embedded frontend. Every frontend
      gets the same duplex I/O: echo removal, perception, the overlap gate.
    * ``speech``: where the voice goes; default a `venus.speech.AudioSpeechOutput` in
      ``models.voice`` (Piper, or eSpeak NG without the ``voices`` extra), sample-aligned
      with the input; on a wall clock it synthesizes ahead on a worker thread.
    * ``capabilities``: background work it may delegate (default: the built-ins).
    * ``timeline``: a `venus.timeline.Timeline`, a JSONL path, or None (in memory);
      ``session_id`` names the session.
    * ``options``: `AssistantOptions`; ``models``: `AssistantModels` (default: the
      process's shared ones).

    Leaving the ``with`` block closes the frontend and perception's ASR worker. In a
    script::

        with venus.assistant(memory=NotesMemory.from_json("notes.json"),
                             clock=venus.SimulatedClock()) as session:
            summary = session.run(open_video("lecture.mp4"))

    In a notebook cell (Jupyter already runs an event loop, so run the session's own
    loop on a thread)::

        with venus.assistant(memory=mem, mode="audio", clock=venus.SimulatedClock()) as session:
            summary = await asyncio.to_thread(session.run, source)
        session.timeline.entries   # what happened, and when
    """
    if mode not in _MODES:
        raise ConfigError(f"unknown mode {mode!r}; use 'omni' or 'audio'")
    options = options or AssistantOptions()
    models = models or shared_models()
    clock = clock or WallClock()
    config = replace(options.perception or PerceptionConfig(),
                     deterministic=clock.kind == "simulated")
    voice = options.voice or SpeechOutputOptions()
    if clock.kind == "simulated" and voice.synthesis_s_per_word is None:
        # simulated time waits for the first piece as long as this voice takes live
        voice = replace(voice, synthesis_s_per_word=SYNTHESIS_S_PER_WORD.get(
            models.voice.engine, 0.0))
    output = speech if speech is not None else AudioSpeechOutput(
        voice, synthesizer=models.voice.synthesizer, ahead=clock.kind != "simulated")
    perception = UserPerception(config, detector=models.detector,
                                transcriber=models.transcriber, embedder=models.embedder,
                                faces=mode == "omni", probe=models.probe,
                                end_of_turn=models.end_of_turn) if options.perceive else None
    if frontend is None:
        frontend = EmbeddedFrontend(memory, mode=mode, options=options.embedded, config=config)
    duplex = options.duplex or DuplexOptions()
    if isinstance(frontend, EmbeddedFrontend):
        duplex = replace(duplex, partials="overlap")  # it reads words only in overlaps
    return Session(frontend, clock=clock,
                   capabilities=builtin_capabilities() if capabilities is None else capabilities,
                   duplex=DuplexIO(output, perception, duplex), memory=memory,
                   timeline=timeline, session_id=session_id, options=options.session)
