import { defineStore } from 'pinia'
import { ref } from 'vue'
import {
  toBridgeError,
  useBridge,
  type BridgeError,
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

  async function loadServers(): Promise<void> {
    serversLoading.value = true
    try {
      servers.value = (await bridge.call('McpServers')) ?? []
      serversError.value = null
    } catch (e) {
      serversError.value = toBridgeError('McpServers', e)
    } finally {
      serversLoading.value = false
    }
  }

  async function mcpLog(server: string, lines?: number): Promise<McpLog> {
    try {
      return await bridge.call('McpLog', lines === undefined ? { server } : { server, lines })
    } catch (e) {
      throw toBridgeError('McpLog', e)
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
    loadServers,
    mcpLog,
  }
})
