import { createPinia } from 'pinia'
import { createApp } from 'vue'
import App from './App.vue'
import { BridgeKey, selectBridge } from './bridge'
import './styles/theme.css'

const app = createApp(App)
app.provide(BridgeKey, selectBridge(window))
app.use(createPinia())
app.mount('#app')
