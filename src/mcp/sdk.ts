// The one module that imports the MCP SDK (and zod, its schema library): the build makes it a bundle of its own,
// dist/mcp-sdk.cjs (scripts/lib/bundle-cli.mjs), which the host compiles only for `kubectl arch mcp`, so that no
// other command pays for loading it (src/host/run.ts). Everything else in src/mcp/ reaches the SDK through here.
export { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
export { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
export { z } from 'zod';
