import type { InjectionKey } from 'vue'
import type { Bridge } from './types'

// The key the app provides its Bridge under (main.ts).
export const BridgeKey: InjectionKey<Bridge> = Symbol('bridge')
