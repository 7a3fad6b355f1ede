import { defineStore } from 'pinia'
import { ref } from 'vue'
import {
  BridgeError,
  toBridgeError,
  useBridge,
  type McpServerArgs,
  type ConnectionResult,
  type Defaults,
  type McpLog,
  type McpServer,
  type ModelArgs,
  type ModelInfo,
  type NetworkArgs,
  type ProbeArgs,
  type Settings,
} from '../bridge'
import { useAppStore } from './app'

// The user's settings (config file, model provider, default axes) and the MCP
// servers' status. Nothing is pushed: a save returns the new Settings, and
// Info is re-read so the status bar shows the model now running.
export const useSettingsStore = defineStore('settings', () => {
  const bridge = useBridge()
  const app = useAppStore()
  const settings = ref<Settings | null>(null)
  const error = ref<BridgeError | null>(null)
  const servers = ref<McpServer[] | null>(null)
  const serversError = ref<BridgeError | null>(null)
  const serversLoading = ref(false)

  async function load(): Promise<void> {
    try {
      settings.value = await bridge.call('GetSettings')
      error.value = null
    } catch (e) {
      error.value = toBridgeError('GetSettings', e)
    }
  }

  // The save methods reject with a BridgeError; the form that asked shows it.
  async function saveModel(args: ModelArgs): Promise<Settings> {
    try {
      const s = await bridge.call('SaveModelSettings', args)
      settings.value = s
      await app.load()
      return s
    } catch (e) {
      throw toBridgeError('SaveModelSettings', e)
    }
  }

  async function saveDefaults(d: Defaults): Promise<Settings> {
    try {
      const s = await bridge.call('SaveDefaults', d)
      settings.value = s
      return s
    } catch (e) {
      throw toBridgeError('SaveDefaults', e)
    }
  }

  async function saveNetwork(a: NetworkArgs): Promise<Settings> {
    try {
      const s = await bridge.call('SaveNetworkSettings', a)
      settings.value = s
      return s
    } catch (e) {
      throw toBridgeError('SaveNetworkSettings', e)
    }
  }

  async function listModels(p: ProbeArgs): Promise<ModelInfo[]> {
    try {
      return (await bridge.call('ListModels', p)) ?? []
    } catch (e) {
      throw toBridgeError('ListModels', e)
    }
  }

  async function testConnection(p: ProbeArgs): Promise<ConnectionResult> {
    try {
      return await bridge.call('TestConnection', p)
    } catch (e) {
      throw toBridgeError('TestConnection', e)
    }
  }

  // The servers as an open session sees them (its workspace's, its trust);
  // without one, the user's servers.
  const serversSession = ref<string | null>(null)
  const withSession = <T extends object>(a: T): T & { session_id?: string } => (serversSession.value ? { ...a, session_id: serversSession.value } : a)

  async function loadServers(sessionId: string | null = serversSession.value): Promise<void> {
    serversSession.value = sessionId
    serversLoading.value = true
    try {
      servers.value = (await bridge.call('McpServers', withSession({}))) ?? []
      serversError.value = null
    } catch (e) {
      serversError.value = toBridgeError('McpServers', e)
    } finally {
      serversLoading.value = false
    }
  }

  async function mcpLog(server: string, lines?: number): Promise<McpLog> {
    try {
      return await bridge.call('McpLog', withSession(lines === undefined ? { server } : { server, lines }))
    } catch (e) {
      throw toBridgeError('McpLog', e)
    }
  }

  // Adds or edits a server in config.toml; the list comes back reloaded
  // (the servers start again without a restart). Throws the refusal.
  async function saveServer(a: McpServerArgs): Promise<void> {
    try {
      servers.value = (await bridge.call('SaveMcpServer', withSession(a))) ?? []
      serversError.value = null
    } catch (e) {
      throw toBridgeError('SaveMcpServer', e)
    }
  }
  async function removeServer(name: string): Promise<void> {
    try {
      servers.value = (await bridge.call('RemoveMcpServer', withSession({ name }))) ?? []
      serversError.value = null
    } catch (e) {
      throw toBridgeError('RemoveMcpServer', e)
    }
  }
  // Trust and untrust act in the open session's workspace, through the
  // same calls as the trust card and the Grants list.
  async function trustServer(name: string, scope: 'session' | 'workspace'): Promise<void> {
    const id = serversSession.value
    if (!id) throw new BridgeError('backend', 'TrustMcpServer', 'Open a session first: trust applies to its workspace.')
    try {
      await bridge.call('TrustMcpServer', { session_id: id, server: name, scope })
    } catch (e) {
      throw toBridgeError('TrustMcpServer', e)
    } finally {
      await loadServers(id)
    }
  }
  async function untrustServer(name: string, scope: 'session' | 'workspace'): Promise<void> {
    const id = serversSession.value
    if (!id) throw new BridgeError('backend', 'RevokeGrant', 'Open a session first: trust applies to its workspace.')
    try {
      await bridge.call('RevokeGrant', { session_id: id, kind: 'mcp-server', id: `${scope}:${name}` })
    } catch (e) {
      throw toBridgeError('RevokeGrant', e)
    } finally {
      await loadServers(id)
    }
  }

  return {
    settings,
    error,
    servers,
    serversError,
    serversLoading,
    load,
    saveModel,
    saveDefaults,
    saveNetwork,
    listModels,
    testConnection,
    serversSession,
    loadServers,
    mcpLog,
    saveServer,
    removeServer,
    trustServer,
    untrustServer,
  }
})
