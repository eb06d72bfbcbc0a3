/**
 * The names of the tools the MCP client adds to the servers' own. None has "__", so none can
 * clash with a server's tool (`<server>__<tool>`). A module of its own: the CLI's policy needs
 * the names without loading the client.
 */

/** The tool listing resources and resource templates. */
export const LIST_RESOURCES_TOOL = "list_mcp_resources";
/** The tool reading one resource. */
export const READ_RESOURCE_TOOL = "read_mcp_resource";
/** The tool searching the MCP tools deferred to save context. */
export const TOOL_SEARCH_TOOL = "search_mcp_tools";
