// What the workspace's own tools (benchmarks) use beyond the public API: a transport, the helper
// artifact, per-host runtime settings and the rendered gateway document. Not in the release package.
export * from './index.js';
export { SystemSshCommandExecutor } from './transport/system-ssh.js';
export { loadHelperArtifact } from './deps.js';
export { runtimeSettingsFor } from './config/index.js';
export { sshGatewayConfigurationDocument } from './admission/document.js';
