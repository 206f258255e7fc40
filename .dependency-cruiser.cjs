// Project boundaries, checked by every project's `lint` target (dependency-cruiser). Paths are
// resolved files relative to the workspace root, so an import through a package name and one
// through a relative path are judged alike.
const TEST = '\\.test\\.ts$';
const NODE_IO = '^(fs|fs/promises|child_process|net|http|https|http2|dgram|dns|dns/promises|tls|worker_threads|cluster)$';
const LIBRARIES = '^libs/(protocol|markers|helper-call)/src/';
const ZOD_MINI = '^node_modules/zod/(v4/)?mini/';

// The helper's rooms, bottom up: a room imports only rooms on a lower floor (its own files too),
// never one beside or above it; main.ts, dispatch.ts and root.ts above every room, imported by none.
// Tests may import any room: a test sets up the state its source needs.
const HELPER = '^apps/host-helper/src/';
const HELPER_FLOORS = [['run'], ['fs', 'audit'], ['lock', 'systemd', 'workspace'], ['context'], ['accounts', 'gateway'], ['revision', 'runtime'], ['plan'], ['ops']];
const HELPER_ROOMS = HELPER_FLOORS.flat();
const helperRoomRules = HELPER_FLOORS.flatMap((floor, level) =>
  floor.map((room) => {
    const below = HELPER_FLOORS.slice(0, level).flat();
    return {
      name: `helper-${room}-imports-only-rooms-below`,
      comment: below.length ? `The helper's ${room}/ may import only ${below.join(', ')} (and its own files).` : `The helper's ${room}/ imports no other room.`,
      severity: 'error',
      from: { path: `${HELPER}${room}/`, pathNot: TEST },
      to: { path: HELPER, pathNot: `${HELPER}(${[room, ...below].join('|')})/` },
    };
  }),
);

module.exports = {
  forbidden: [
    ...helperRoomRules,
    {
      name: 'helper-files-live-in-a-known-room',
      comment: 'A helper source sits in one of the rooms above, or is main.ts, dispatch.ts or root.ts; a new room gets its floor here.',
      severity: 'error',
      from: { path: HELPER, pathNot: [`${HELPER}(${HELPER_ROOMS.join('|')}|scenarios)/`, `${HELPER}(main|dispatch|root)\\.ts$`] },
      to: {},
    },
    {
      name: 'helper-scenarios-are-tests',
      comment: 'scenarios/ holds real-host test files only.',
      severity: 'error',
      from: { path: `${HELPER}scenarios/`, pathNot: TEST },
      to: {},
    },
    {
      name: 'helper-imports-only-the-libraries',
      comment: 'The helper runs as root on every host: its sources import only the three libraries, zod/mini and Node built-ins.',
      severity: 'error',
      from: { path: '^apps/host-helper/src/', pathNot: TEST },
      to: { dependencyTypesNot: ['core'], pathNot: ['^apps/host-helper/src/', LIBRARIES, ZOD_MINI] },
    },
    {
      name: 'helper-tests-import-only-test-support',
      comment: "The helper's tests may add the test hosts and the shared test support, nothing else.",
      severity: 'error',
      from: { path: `^apps/host-helper/src/.*${TEST}` },
      to: { dependencyTypesNot: ['core'], pathNot: ['^apps/host-helper/src/', LIBRARIES, ZOD_MINI, '^tools/(testhost|test-support)/src/'] },
    },
    {
      name: 'helper-call-imports-only-protocol-and-markers',
      comment: 'The one place a helper call is built or read stays pure: protocol, markers, zod/mini and Node built-ins (its tests may add the ssh client).',
      severity: 'error',
      from: { path: '^libs/helper-call/src/', pathNot: TEST },
      to: { dependencyTypesNot: ['core'], pathNot: ['^libs/(helper-call|protocol|markers)/src/', ZOD_MINI] },
    },
    {
      name: 'libraries-never-import-apps',
      severity: 'error',
      from: { path: '^libs/' },
      to: { path: '^apps/' },
    },
    {
      name: 'libraries-do-no-io',
      comment: 'Libraries stay pure; their tests may do I/O. ssh-client exists to spawn the ssh client and collect its output.',
      severity: 'error',
      from: { path: '^libs/[^/]+/src/', pathNot: [TEST, '^libs/ssh-client/'] },
      to: { dependencyTypes: ['core'], path: NODE_IO },
    },
    {
      name: 'product-never-imports-tools',
      comment: 'Test hosts, test support, chaos and benchmarks are for tests; product sources never import them.',
      severity: 'error',
      from: { path: '^(apps|libs)/[^/]+/src/', pathNot: TEST },
      to: { path: '^tools/' },
    },
    {
      name: 'sources-never-import-test-folders',
      comment: "A project's test/ folder serves its tests only.",
      severity: 'error',
      from: { path: '^(apps|libs|tools)/[^/]+/src/', pathNot: TEST },
      to: { path: '^(apps|libs|tools)/[^/]+/test/' },
    },
    {
      name: 'no-deep-imports',
      comment: 'Another project is reached through its package entry (src/index.ts), never into its files; the controller also has a workspace-only entry for tools (src/internal.ts).',
      severity: 'error',
      from: { path: '^(apps|libs|tools)/([^/]+)/' },
      to: { path: '^(apps|libs|tools)/[^/]+/', pathNot: ['^$1/$2/', '^(apps|libs|tools)/[^/]+/src/index\\.ts$', '^apps/controller/src/internal\\.ts$'] },
    },
    {
      name: 'no-cycles',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-unresolvable-imports',
      comment: 'The consumer check imports the release package, which exists only once it is built.',
      severity: 'error',
      from: { pathNot: '^apps/controller/consumer/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
    },
  },
};
