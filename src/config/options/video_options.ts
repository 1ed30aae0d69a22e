/**
 * `profile` options of the "Video Input" group: synthetic video clips sent with each chat request (AIPerf 0.13's
 * `--video-*`; `src/dataset/synthetic_video.ts`). Videos are made only with both `--video-width` and
 * `--video-height`, for synthetic datasets.
 */
import { VIDEO_SYNTH_TYPES } from "../../dataset/video_frames.ts";
import { optionGroup } from "./option_group.ts";

const SYNTHETIC_ONLY = [
  { key: "inputFile", why: "shapes synthetic videos, and a dataset file brings its own inputs" },
  { key: "publicDataset", why: "shapes synthetic videos, and a public dataset brings its own inputs" },
] as const;

export const VIDEO_OPTIONS = optionGroup("Video Input", [
  {
    key: "videoBatchSize",
    type: "int",
    min: 0,
    max: 1_000,
    default: 1,
    metavar: "<int>",
    flags: ["--video-batch-size", "--batch-size-video"],
    yaml: ["benchmark.dataset.video.batch_size"],
    conflictsWith: SYNTHETIC_ONLY,
    help: "Videos per request (with --video-width and --video-height); 0 = none.",
  },
  {
    key: "videoDuration",
    type: "float",
    min: 0,
    exclusiveMin: true,
    max: 3_600,
    default: 5,
    metavar: "<seconds>",
    flags: ["--video-duration"],
    yaml: ["benchmark.dataset.video.duration"],
    help: "Length of each clip in seconds; the clip has duration × fps frames.",
  },
  {
    key: "videoFps",
    type: "int",
    min: 1,
    max: 240,
    default: 4,
    metavar: "<fps>",
    flags: ["--video-fps"],
    yaml: ["benchmark.dataset.video.fps"],
    help: "Frames per second of each clip.",
  },
  {
    key: "videoWidth",
    type: "int",
    min: 1,
    max: 16_384,
    metavar: "<px>",
    flags: ["--video-width"],
    yaml: ["benchmark.dataset.video.width"],
    requires: [{ key: "videoHeight", why: "sets the frame size with --video-height" }],
    help: "Frame width in pixels; with --video-height it turns synthetic video on.",
  },
  {
    key: "videoHeight",
    type: "int",
    min: 1,
    max: 16_384,
    metavar: "<px>",
    flags: ["--video-height"],
    yaml: ["benchmark.dataset.video.height"],
    requires: [{ key: "videoWidth", why: "sets the frame size with --video-width" }],
    help: "Frame height in pixels; with --video-width it turns synthetic video on.",
  },
  {
    key: "videoSynthType",
    type: "enum",
    choices: VIDEO_SYNTH_TYPES,
    default: "moving_shapes",
    flags: ["--video-synth-type"],
    yaml: ["benchmark.dataset.video.synth_type"],
    help: "Picture of the clips: moving_shapes (three shapes crossing), grid_clock (a grid and a turning clock) or " +
      "noise (random pixels, a new clip each time; the hardest to compress).",
  },
  {
    key: "videoFormat",
    type: "enum",
    choices: ["mp4", "webm"],
    default: "webm",
    flags: ["--video-format"],
    yaml: ["benchmark.dataset.video.format"],
    help: "Container of the clips.",
  },
  {
    key: "videoCodec",
    type: "string",
    default: "libvpx-vp9",
    metavar: "<codec>",
    flags: ["--video-codec"],
    yaml: ["benchmark.dataset.video.codec"],
    help: "Video codec: any encoder of the local ffmpeg (libvpx-vp9, libvpx, libx264, …), which encodes the clips " +
      "as AIPerf does; mjpeg with --video-format mp4 is encoded by infermeter itself, without ffmpeg.",
  },
  {
    key: "videoAudioSampleRate",
    type: "float",
    // 8–96 kHz once read (checked with the other video options when clips are made).
    min: 0,
    exclusiveMin: true,
    max: 96_000,
    default: 44_100,
    metavar: "<Hz|kHz>",
    flags: ["--video-audio-sample-rate"],
    yaml: ["benchmark.dataset.video.audio.sample_rate"],
    help: "Sample rate of the clips' audio track, in Hz or kHz (values up to 96 are kHz): 16000 or 16, 44100 or 44.1.",
  },
  {
    key: "videoAudioNumChannels",
    type: "int",
    min: 0,
    max: 2,
    default: 0,
    metavar: "<0|1|2>",
    flags: ["--video-audio-num-channels"],
    yaml: ["benchmark.dataset.video.audio.channels"],
    help: "Audio channels of the clips: 0 = no audio track, 1 mono, 2 stereo (Gaussian noise, muxed by ffmpeg).",
  },
  {
    key: "videoAudioCodec",
    type: "enum",
    choices: ["aac", "libvorbis", "libopus"],
    flags: ["--video-audio-codec"],
    yaml: ["benchmark.dataset.video.audio.codec"],
    defaultDescription: "libvorbis for webm, libopus for mp4",
    help: "Audio codec of the clips' audio track (needs --video-audio-num-channels 1 or 2).",
  },
  {
    key: "videoAudioDepth",
    type: "enum",
    choices: ["8", "16", "24", "32"],
    default: "16",
    flags: ["--video-audio-depth"],
    yaml: ["benchmark.dataset.video.audio.depth"],
    help: "Bit depth of the audio track's samples.",
  },
]);
