import { reactive } from 'vue'

// One in-page confirmation at a time (Wails' webview has no window.confirm).
export const confirmState = reactive<{ message: string; action: string; resolve: ((ok: boolean) => void) | null }>({
  message: '',
  action: '',
  resolve: null,
})

export function askConfirm(message: string, action: string): Promise<boolean> {
  confirmState.resolve?.(false)
  return new Promise((resolve) => {
    confirmState.message = message
    confirmState.action = action
    confirmState.resolve = (ok) => {
      confirmState.resolve = null
      resolve(ok)
    }
  })
}
